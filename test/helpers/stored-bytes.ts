// What an upload stores (docs/limits.md, "Quotas"): its original and the canonical mesh the server writes from it,
// computed here with the same parser and writer, so tests can state storage figures exactly.
import { type ModelFormat, parseModel, writeCanonical3mf, writeCanonicalObj } from '../../shared/model/index.ts';

export function storedBytesOf(bytes: Uint8Array, format: ModelFormat): number {
  const parsed = parseModel(bytes, format);
  const canonical = parsed.negativeVolumes
    ? writeCanonical3mf(parsed.mesh, parsed.negativeVolumes)
    : writeCanonicalObj(parsed.mesh);
  return bytes.length + canonical.length;
}
