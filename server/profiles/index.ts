// The front door of profiles/: printer, material and global profiles, and settings resolution (a request's settings from its profiles).
// Other folders import only what is exported here (npm run check:graph).
export { profilePaths, profileSchemas } from './openapi.ts';
export { printPresetQualities } from './print-presets.ts';
export type { QuoteRequest, Resolution } from './resolve.ts';
export { resolveBuildVolume, resolverByMaterial, resolveSettings } from './resolve.ts';
export { profilesRouter } from './router.ts';
export { seedGlobalProfiles } from './service.ts';
export { sectionSchema, settingSchema } from './settings-schema.ts';
export type { ProfileRow } from './sql.ts';
export { listProfiles } from './sql.ts';
