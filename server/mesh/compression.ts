// A 3MF whose zip states far more uncompressed bytes than real models compress to is refused before anything is
// inflated (docs/limits.md, "Fair parsing"): the sizes come from the zip's central directory, read by fflate
// without inflating an entry. A directory that understates its sizes is caught while inflating instead, where
// the parser counts every byte against the same allowance (parse-worker.ts passes it as maxInflatedBytes).
import { unzipSync } from 'fflate';
import { DEFAULT_LIMITS, ModelError } from '../../shared/model/index.ts';
import { inflatedAllowance, MAX_COMPRESSION_RATIO, RATIO_FREE_BYTES } from './budget.ts';

/** Stops the directory walk early; whatever is wrong with the archive, the parser says it properly. */
class Unreadable extends Error {}

/** The uncompressed bytes the central directory states, or null when it cannot be read (the parser will refuse). */
export function statedUncompressedBytes(zip: Uint8Array): number | null {
  let total = 0;
  let entries = 0;
  try {
    unzipSync(zip, {
      filter: (entry) => {
        if (++entries > DEFAULT_LIMITS.maxZipEntries || !Number.isSafeInteger(entry.originalSize))
          throw new Unreadable();
        total += entry.originalSize;
        return false; // never inflate here
      },
    });
  } catch {
    return null;
  }
  return total;
}

/** Refuses a 3MF whose stated uncompressed size is beyond what its size justifies. */
export function checkCompression(zip: Uint8Array): void {
  const stated = statedUncompressedBytes(zip);
  if (stated === null || stated <= inflatedAllowance(zip.length)) return;
  const ratio = Math.round(stated / zip.length);
  throw new ModelError(
    'compression_ratio_too_high',
    `The 3MF states ${stated} uncompressed bytes in a ${zip.length}-byte file, ${ratio} times its size; ` +
      `this service reads at most ${MAX_COMPRESSION_RATIO} times a 3MF's size (and at least ${RATIO_FREE_BYTES} bytes). ` +
      'Real models compress about 4 to 10 times.',
    { limit: MAX_COMPRESSION_RATIO, ratio, stated_bytes: stated, file_bytes: zip.length },
  );
}
