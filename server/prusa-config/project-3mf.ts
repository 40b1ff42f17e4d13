// The config a PrusaSlicer project 3MF carries (Metadata/Slic3r_PE.config: the flat format, every option written
// as a `; key = value` comment). Read from the zip's central directory as the model reader's compression check
// does (server/mesh/compression.ts): entries are counted against the model reader's bound, only this entry is
// inflated, and only when its stated size is within MAX_CONFIG_BYTES, so a large project costs a directory walk.
import { unzipSync } from 'fflate';
import { DEFAULT_LIMITS } from '../../shared/model/index.ts';
import { readFlatConfig } from './flat-config.ts';
import { ConfigError, MAX_CONFIG_BYTES, type ReadConfig } from './notes.ts';

export const PROJECT_CONFIG_PART = 'Metadata/Slic3r_PE.config';

class TooBig extends Error {}

function configBytes(bytes: Uint8Array): Uint8Array | undefined {
  let entries = 0;
  const files = unzipSync(bytes, {
    filter: (entry) => {
      if (++entries > DEFAULT_LIMITS.maxZipEntries)
        throw new ConfigError('file', `has more than ${DEFAULT_LIMITS.maxZipEntries} zip entries`);
      if (entry.name.toLowerCase() !== PROJECT_CONFIG_PART.toLowerCase()) return false;
      if (!Number.isSafeInteger(entry.originalSize) || entry.originalSize > MAX_CONFIG_BYTES) throw new TooBig();
      return true;
    },
  });
  const found = Object.entries(files).find(([name]) => name.toLowerCase() === PROJECT_CONFIG_PART.toLowerCase());
  return found?.[1];
}

export function readProjectConfig(bytes: Uint8Array): ReadConfig {
  let config: Uint8Array | undefined;
  try {
    config = configBytes(bytes);
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    if (e instanceof TooBig)
      throw new ConfigError('file', `holds a ${PROJECT_CONFIG_PART} larger than ${MAX_CONFIG_BYTES} bytes`, 413);
    throw new ConfigError('file', 'is not a readable 3MF (zip) package');
  }
  if (!config) throw new ConfigError('file', `is a 3MF without ${PROJECT_CONFIG_PART}: not a PrusaSlicer project`);
  if (config.length > MAX_CONFIG_BYTES)
    throw new ConfigError('file', `holds a ${PROJECT_CONFIG_PART} larger than ${MAX_CONFIG_BYTES} bytes`, 413);
  return readFlatConfig(Buffer.from(config).toString('utf8'), PROJECT_CONFIG_PART, true);
}
