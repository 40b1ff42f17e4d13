// The front door of mesh/: parsing uploads in worker threads (the parsers are in shared/model/), footprints and shapes.
// Other folders import only what is exported here (npm run check:graph).

export type { CpuLimit, CpuWatch, Spent } from './cpu-time.ts';
export { processCpuMs, watchCpu } from './cpu-time.ts';
export type { FlatAreas, ModelShape } from './footprint.ts';
export type { BodyBytes, ModelParser, UploadStream } from './parse.ts';
export { createModelParser, parserOptions } from './parse.ts';
