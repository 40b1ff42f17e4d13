// The front door of files/: model files: uploads (with a token or an upload id), upload ids, download, rescale, delete, printability,
// and the event the folders above subscribe to (events.ts).
// Other folders import only what is exported here (npm run check:graph).
export type { UploadListener } from './events.ts';
export { filePaths, fileResponses, fileSchemas } from './openapi.ts';
export { printabilityRouter } from './printability-router.ts';
export { filesRouter } from './router.ts';
export { fileForCaller, removeFile } from './service.ts';
export type { FileRow } from './sql.ts';
export { fileById, fileByIdAnyAccount } from './sql.ts';
