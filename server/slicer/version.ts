// The configured slicer's version for answers that show it but do not need the slicer to run (the printer
// library): null when the binary is missing or not a PrusaSlicer, rather than a 503.
import { detectSlicer } from './engine.ts';

export async function slicerVersionOrNull(binary: string): Promise<string | null> {
  try {
    return (await detectSlicer(binary)).version;
  } catch {
    return null;
  }
}
