// The printer every account falls back to when it has no default printer profile of its own.
export const GLOBAL_BUILD_VOLUME = { x: 250, y: 210, z: 210 } as const;
