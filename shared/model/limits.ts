// Resource caps. Every allocation a parser makes is bounded by one of these, checked BEFORE the
// allocation, so a hostile file fails fast with a ModelError instead of exhausting memory.
import { fail } from './errors.ts';

export interface ParseLimits {
  /** Size of the uploaded file. */
  maxBytes: number;
  /** Triangles in the output mesh (after 3MF instancing). */
  maxTriangles: number;
  /** Distinct (welded) vertices in the output mesh, and raw vertices per source object. */
  maxVertices: number;
  /** Entries in a 3MF zip. */
  maxZipEntries: number;
  /** Total bytes inflated from a 3MF zip, counted as they are produced. */
  maxInflatedBytes: number;
  /** Element nesting depth of any XML part. */
  maxXmlDepth: number;
  /** Characters in one XML token (text node, attribute value, comment, name) or one start tag with its attributes. */
  maxXmlTokenChars: number;
  /** Attributes on one XML element. */
  maxXmlAttributes: number;
  /** Resources (objects, materials...) declared across a 3MF package. */
  maxObjects: number;
  /** Nesting of 3MF <components> (build item -> component -> component ...). */
  maxComponentDepth: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: ParseLimits = Object.freeze({
  maxBytes: 256 * MiB,
  maxTriangles: 10_000_000,
  maxVertices: 10_000_000,
  maxZipEntries: 1000,
  maxInflatedBytes: 512 * MiB,
  maxXmlDepth: 64,
  maxXmlTokenChars: 1024 * 1024,
  maxXmlAttributes: 256,
  maxObjects: 100_000,
  maxComponentDepth: 16,
});

/** Merges overrides onto the defaults; a limit must be a positive integer. */
export function resolveLimits(overrides?: Partial<ParseLimits>): ParseLimits {
  const limits: ParseLimits = { ...DEFAULT_LIMITS };
  if (!overrides) return limits;
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof ParseLimits)[]) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1) {
      fail('invalid_limits', `Parse limit ${key} must be a positive integer, got ${String(value)}.`, { limit: key });
    }
    limits[key] = value;
  }
  return limits;
}
