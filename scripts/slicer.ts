// `npm run slicer -- ARGS`: runs the PrusaSlicer the server would run (PRUSA_SLICER_BIN, else the 2.9 tree setup
// installed, else Debian's 2.5), with ARGS, so an operator reproduces a slice with exactly the server's binary.
import { spawnSync } from 'node:child_process';
import { slicerChoice } from '../server/config.ts';

const { binary } = slicerChoice();
const r = spawnSync(binary, process.argv.slice(2), { stdio: 'inherit' });
if (r.error) {
  console.error(`cannot run ${binary}: ${r.error.message}`);
  process.exit(127);
}
process.exit(r.status ?? 1);
