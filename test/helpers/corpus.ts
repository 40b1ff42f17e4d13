// Locates the model corpus (real and adversarial model files) in test/fixtures/models; its README lists each
// file's source and licence.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Absolute path of the corpus, or of a file inside it; throws clearly when it is missing. */
export function corpusPath(...parts: string[]): string {
  const dir = path.resolve(repoRoot, 'test', 'fixtures', 'models');
  if (!existsSync(dir)) {
    throw new Error(
      `model corpus not found at ${dir}; it is part of the repository (git checkout test/fixtures/models)`,
    );
  }
  return path.join(dir, ...parts);
}

/** A corpus file's bytes. */
export function corpusBytes(...parts: string[]): Uint8Array {
  return new Uint8Array(readFileSync(corpusPath(...parts)));
}
