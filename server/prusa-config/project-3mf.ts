// The config a PrusaSlicer project 3MF carries (Metadata/Slic3r_PE.config, the flat format), read with the
// model reader's bounded zip package: only that entry is inflated, and at most MAX_CONFIG_BYTES of it.
import { DEFAULT_LIMITS, ModelError } from '../../shared/model/index.ts';
import { ZipPackage } from '../../shared/model/zip.ts';
import { readFlatConfig } from './flat-config.ts';
import { ConfigError, MAX_CONFIG_BYTES, type ReadConfig } from './notes.ts';

export const PROJECT_CONFIG_PART = 'Metadata/Slic3r_PE.config';

export function readProjectConfig(bytes: Uint8Array): ReadConfig {
  let pkg: ZipPackage;
  const chunks: Uint8Array[] = [];
  try {
    pkg = new ZipPackage(bytes, { ...DEFAULT_LIMITS, maxInflatedBytes: MAX_CONFIG_BYTES });
    if (!pkg.has(PROJECT_CONFIG_PART)) {
      throw new ConfigError('file', `is a 3MF without ${PROJECT_CONFIG_PART}: not a PrusaSlicer project`);
    }
    pkg.stream(PROJECT_CONFIG_PART, (c) => chunks.push(c));
  } catch (e) {
    if (e instanceof ModelError) throw new ConfigError('file', `is not a readable 3MF: ${e.message}`);
    throw e;
  }
  return readFlatConfig(Buffer.concat(chunks).toString('utf8'), PROJECT_CONFIG_PART, true);
}
