// A process killed mid-slice (kill -9): its PrusaSlicer dies with it, and its work folder is swept at the next
// start, while folders of live processes stay. A slicer that outlived its owner is reaped by its recorded pid.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeWorkDir, SLICER_PID_FILE } from '../server/slicer/workdirs.ts';
import { processStartTime } from '../server/storage/tmp-dirs.ts';
import { corpusPath } from './helpers/corpus.ts';
import { until } from './helpers/poll.ts';

const SCRIPT = fileURLToPath(new URL('./helpers/slicing-process.ts', import.meta.url));

/** Killed processes may linger as zombies when PID 1 does not reap them; a zombie is dead. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Starts the slicing process; resolves with it and its start-up sweep report. */
async function start(root: string, mesh?: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, root, ...(mesh ? [mesh] : [])], {
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const swept = await until('the start-up sweep', 60_000, () => {
    if (child.exitCode !== null && !out.includes('"swept"')) throw new Error(`the slicing process exited: ${out}`);
    const line = out.split('\n').find((l) => l.startsWith('{"swept"'));
    return line ? (JSON.parse(line).swept as { removed: string[]; killed: number[] }) : undefined;
  });
  return { child, swept, output: () => out };
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );

/** A detached `sleep` standing in for a slicer: its own process group, working in `cwd`. */
function sleeper(cwd: string): ChildProcess {
  const p = spawn('sleep', ['300'], { cwd, detached: true, stdio: 'ignore' });
  p.unref();
  return p;
}

let root: string;
const strays: ChildProcess[] = [];
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'slicequote-crash-'));
});
after(async () => {
  for (const p of strays) if (p.pid && alive(p.pid)) process.kill(p.pid, 'SIGKILL');
  await rm(root, { recursive: true, force: true });
});

test('kill -9 mid-slice: PrusaSlicer dies with the process; the next start sweeps its folder and keeps live ones', {}, async () => {
  const worker = await start(root, corpusPath('stl', '3DBenchy.stl'));
  const owner = `${worker.child.pid}.${processStartTime(worker.child.pid!)}`;
  const [folder, slicerPid] = await until('PrusaSlicer to run', 60_000, async () => {
    const name = (await readdir(root)).find((n) => n.startsWith(`slicequote-slice-${owner}-`));
    const pid = name && Number(await readFile(join(root, name, SLICER_PID_FILE), 'utf8').catch(() => ''));
    return pid && alive(pid) ? ([join(root, name), pid] as const) : undefined;
  });
  // setpriv sets the parent-death signal, then execs PrusaSlicer in place: kill only once that happened.
  const comm = () =>
    readFile(`/proc/${slicerPid}/comm`, 'utf8').then(
      (c) => c.trim(),
      () => 'setpriv',
    );
  await until('setpriv to become PrusaSlicer', 30_000, async () => ((await comm()) !== 'setpriv' ? true : undefined));
  worker.child.kill('SIGKILL');
  await exited(worker.child);
  await until('PrusaSlicer to die with its process', 2_000, () => (alive(slicerPid) ? undefined : true));
  assert.ok(existsSync(folder), 'the killed process could not clean up');

  // What the next start must leave alone: a live process's folder (this one's), and a folder it cannot attribute.
  const live = await makeWorkDir(root);
  const unattributed = join(root, 'slicequote-slice-Ab12Cd');
  await mkdir(unattributed);
  // A slicer that outlived its owner (no setpriv), and a dead owner's record naming a pid now used elsewhere.
  const orphanDir = join(root, `slicequote-slice-${owner}-orphan`);
  const reusedDir = join(root, `slicequote-slice-${owner}-reused`);
  await Promise.all([mkdir(orphanDir), mkdir(reusedDir)]);
  const orphan = sleeper(orphanDir);
  const unrelated = sleeper(root);
  strays.push(orphan, unrelated);
  await writeFile(join(orphanDir, SLICER_PID_FILE), String(orphan.pid));
  await writeFile(join(reusedDir, SLICER_PID_FILE), String(unrelated.pid));

  const next = await start(root);
  await exited(next.child);
  assert.deepEqual(next.swept.removed.sort(), [folder, orphanDir, reusedDir].sort(), next.output());
  assert.deepEqual(next.swept.killed, [orphan.pid]);
  await until('the orphaned slicer to die', 5_000, () => (alive(orphan.pid!) ? undefined : true));
  assert.ok(alive(unrelated.pid!), 'a process that merely reuses a recorded pid is not killed');
  for (const dir of [folder, orphanDir, reusedDir]) assert.ok(!existsSync(dir), `${dir} swept`);
  for (const dir of [live, unattributed]) assert.ok(existsSync(dir), `${dir} kept`);
});
