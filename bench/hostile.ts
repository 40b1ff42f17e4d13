// Hostile-corpus benchmark: every file of test/helpers/hostile.ts, and the heaviest model the caps accept,
// uploaded to a real server process (PGlite); for each, the answer, the wall time, and the server's peak
// resident memory during that upload (VmHWM, reset before each). Then pairs of uploads at once: two
// amplifying XML files, and two of the heaviest geometry the caps let through.
import { HOSTILE_CASES, hostileCase, largestAccepted3mf } from '../test/helpers/hostile.ts';
import { type MeasuredServer, startMeasuredServer } from '../test/helpers/server-process.ts';

const MiB = 1024 * 1024;

interface Row {
  file_kb: number;
  status: number;
  code: string;
  ms: number;
  /** Server RSS when the upload started, and its peak while it was handled. */
  rss_before_mb: number;
  peak_rss_mb: number;
}

async function measure(server: MeasuredServer, uploads: { bytes: Uint8Array; name: string }[]): Promise<Row[]> {
  server.resetPeak();
  const before = Math.round(server.rss().current / MiB);
  const started = performance.now();
  const answers = await Promise.all(uploads.map((u) => server.api.uploadBytes('/v2/file', u.bytes, u.name)));
  const ms = Math.round(performance.now() - started);
  const peak = Math.round(server.rss().peak / MiB);
  return answers.map((res, i) => ({
    file_kb: Math.round(uploads[i]!.bytes.length / 1024), // one answer per upload
    status: res.status,
    code: res.status === 201 ? 'accepted' : res.body.error.code,
    ms,
    rss_before_mb: before,
    peak_rss_mb: peak,
  }));
}

export async function benchHostile(): Promise<Record<string, unknown>> {
  const server = await startMeasuredServer('pglite');
  try {
    // A normal upload first, so the baseline includes loaded parser workers.
    await measure(server, [
      {
        bytes: new TextEncoder().encode('v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\n'),
        name: 'tetra.obj',
      },
    ]);
    const report: Record<string, unknown> = { baseline_rss_mb: Math.round(server.rss().current / MiB) };
    for (const c of HOSTILE_CASES) [report[c.name]] = await measure(server, [{ bytes: c.build(), name: c.fileName }]);
    [report.largest_accepted_3mf] = await measure(server, [{ bytes: largestAccepted3mf(), name: 'largest.3mf' }]);
    const pair = hostileCase('3mf_attribute_300mb');
    const bytes = pair.build();
    report['3mf_attribute_300mb_x2_parallel'] = await measure(server, [
      { bytes, name: 'a.3mf' },
      { bytes, name: 'b.3mf' },
    ]);
    const heavy = hostileCase('3mf_instanced_vertices').build();
    report['3mf_instanced_vertices_x2_parallel'] = await measure(server, [
      { bytes: heavy, name: 'a.3mf' },
      { bytes: heavy, name: 'b.3mf' },
    ]);
    report.overall_peak_rss_mb = Math.max(
      ...Object.values(report)
        .flat()
        .map((r) => (r as Row).peak_rss_mb ?? 0),
    );
    return report;
  } finally {
    await server.stop();
  }
}
