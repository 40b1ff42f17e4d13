// The front door of printer-library/: PrusaSlicer's vendor bundles as a library of printers and their compatible
// presets (GET /v2/profiles/library), a shop's pick from it as a PresetSet (libraryPick, for the import), and a
// user's config bundle resolved off the event loop (resolveConfigBundle).
// Other folders import only what is exported here (npm run check:graph).
export { libraryPick, resolveConfigBundle } from './library.ts';
export { printerLibraryPaths, printerLibrarySchemas } from './openapi.ts';
export { printerLibraryRouter } from './router.ts';
