// Private work folders of slices, named after their owner process: `slicequote-slice-<pid>.<start>-<random>`,
// <start> being the owner's start time (Linux /proc), so a pid reused by another process is not mistaken for the
// owner. The owner removes its folder on every path; what a killed owner left behind is swept at the next start,
// after killing a slicer still running in it. A live owner's folders, on this host or by another process, stay.
import { lstat, mkdtemp, readdir, readFile, readlink, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processStartTime } from '../storage/index.ts';

const PREFIXES = ['slicequote-slice-', 'slicequote-probe-'] as const;
export type WorkDirKind = 'slice' | 'probe';
/** The slicer's process id (= its process group: it is spawned detached), written once it runs. */
export const SLICER_PID_FILE = 'slicer.pid';

const OWNER = `${process.pid}.${processStartTime(process.pid) ?? 0}`;
const NAME = /^slicequote-(?:slice|probe)-(\d+)\.(\d+)-/;

export function makeWorkDir(root: string, kind: WorkDirKind = 'slice'): Promise<string> {
  return mkdtemp(join(root, `${kind === 'slice' ? PREFIXES[0] : PREFIXES[1]}${OWNER}-`));
}

export function recordSlicer(dir: string, pid: number): Promise<void> {
  return writeFile(join(dir, SLICER_PID_FILE), String(pid));
}

function ownerAlive(pid: number, start: string): boolean {
  const now = processStartTime(pid);
  if (now !== null) return now === start;
  if (start !== '0') return false; // named on Linux and no longer in /proc: gone
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Kills the recorded slicer's group, but only if that process still works in this folder (not a reused pid). */
async function killRecordedSlicer(dir: string): Promise<number | null> {
  const pid = Number(await readFile(join(dir, SLICER_PID_FILE), 'utf8').catch(() => ''));
  if (!Number.isInteger(pid) || pid <= 1) return null;
  const [cwd, real] = await Promise.all([
    readlink(`/proc/${pid}/cwd`).catch(() => null),
    realpath(dir).catch(() => dir),
  ]);
  if (cwd !== real) return null;
  try {
    process.kill(-pid, 'SIGKILL');
    return pid;
  } catch {
    return null;
  }
}

export interface SweepReport {
  /** Folders of dead owners that were removed. */
  removed: string[];
  /** Slicers that outlived their owner and were killed. */
  killed: number[];
}

/** Removes the work folders (ours only: same user) whose owner process is gone. Never throws. */
export async function sweepWorkDirs(root: string): Promise<SweepReport> {
  const report: SweepReport = { removed: [], killed: [] };
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names) {
    const owner = NAME.exec(name);
    if (!owner || ownerAlive(Number(owner[1]), owner[2]!)) continue;
    const dir = join(root, name);
    const info = await lstat(dir).catch(() => null); // a real folder, not a link planted to one
    if (!info?.isDirectory() || (process.getuid && info.uid !== process.getuid())) continue;
    const killed = await killRecordedSlicer(dir);
    if (killed !== null) report.killed.push(killed);
    await rm(dir, { recursive: true, force: true, maxRetries: 3 }).then(
      () => report.removed.push(dir),
      () => {},
    );
  }
  return report;
}
