// Which PrusaSlicer the server runs, and where that slicer's vendor profiles are (server/config.ts slicerChoice):
// the 2.9 tree setup installs in the cache directory, else Debian's prusa-slicer; PRUSA_SLICER_BIN wins.
// Run: node --import tsx --test test/slicer-choice.test.ts
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { slicerChoice, slicerTreeDir } from '../server/config.ts';

const cache = mkdtempSync(join(tmpdir(), 'sq-slicer-choice-'));
after(() => rmSync(cache, { recursive: true, force: true }));
const env = (more: Record<string, string> = {}) => ({ PATH: process.env.PATH, SLICEQUOTE_CACHE: cache, ...more });
const DEBIAN_PROFILES = '/usr/share/PrusaSlicer/profiles';

test('without the tree: Debian prusa-slicer and its profiles', () => {
  assert.deepEqual(slicerChoice(env()), { binary: 'prusa-slicer', profilesDir: DEBIAN_PROFILES });
});

test("with the tree: its launcher and the tree's own profiles, not the host's", () => {
  const version = readFileSync('scripts/prusa-slicer.version', 'utf8').trim();
  const tree = slicerTreeDir(env());
  assert.equal(tree, join(cache, `prusa-slicer-${version}`));
  mkdirSync(join(tree, 'usr/share/PrusaSlicer/profiles'), { recursive: true });
  writeFileSync(join(tree, 'prusa-slicer'), '#!/bin/sh\n');
  chmodSync(join(tree, 'prusa-slicer'), 0o755);
  assert.deepEqual(slicerChoice(env()), {
    binary: join(tree, 'prusa-slicer'),
    profilesDir: join(tree, 'usr/share/PrusaSlicer/profiles'),
  });
  // PRUSA_SLICER_BIN names the slicer whatever is installed; the profiles follow the binary it resolves to.
  assert.deepEqual(slicerChoice(env({ PRUSA_SLICER_BIN: 'prusa-slicer' })), {
    binary: 'prusa-slicer',
    profilesDir: DEBIAN_PROFILES,
  });
  assert.equal(slicerChoice(env({ PRUSA_SLICER_PROFILES_DIR: '/srv/profiles' })).profilesDir, '/srv/profiles');
});

test("the server's slicer, as installed here, has PrusaResearch's bundle in its profiles", () => {
  const { profilesDir } = slicerChoice();
  assert.ok(existsSync(join(profilesDir, 'PrusaResearch.ini')), profilesDir);
});
