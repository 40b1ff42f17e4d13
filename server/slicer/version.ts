// The configured slicer's version for answers that show it but do not need the slicer to run (the printer
// library): null when the binary is missing or not a PrusaSlicer, rather than a 503. A missing binary is probed
// once per process, not on every request (detectSlicer probes again after a failure, for the quotes).
import { detectSlicer } from './engine.ts';

const versions = new Map<string, Promise<string | null>>();

export function slicerVersionOrNull(binary: string): Promise<string | null> {
  let version = versions.get(binary);
  if (!version) {
    version = detectSlicer(binary).then(
      (info) => info.version,
      () => null,
    );
    versions.set(binary, version);
  }
  return version;
}
