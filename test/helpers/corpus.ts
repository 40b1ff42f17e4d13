// Locates the shared model corpus (real and adversarial model files), which lives beside the
// repository at ../shared/models rather than inside it.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Absolute path of the corpus, or of a file inside it; throws clearly when it is missing. */
export function corpusPath(...parts: string[]): string {
  const dir = path.resolve(repoRoot, '..', 'shared', 'models');
  if (!existsSync(dir)) {
    throw new Error(`model corpus not found at ${dir}; clone the reference material beside the repository`);
  }
  return path.join(dir, ...parts);
}

/** A corpus file's bytes. */
export function corpusBytes(...parts: string[]): Uint8Array {
  return new Uint8Array(readFileSync(corpusPath(...parts)));
}
