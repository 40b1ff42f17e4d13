// The front door of idempotency/: the Idempotency-Key middleware: a retried request answers what the first one did.
// Other folders import only what is exported here (npm run check:graph).
export { idempotent, uploadFingerprint } from './middleware.ts';
