// The front door of outbox/: events written in the same transaction as the change they report, read by the
// webhook pump (webhooks/dispatcher.ts) and delivered after commit, so that nothing is announced that did not
// happen and nothing that happened is lost.
// Other folders import only what is exported here (npm run check:graph).

export type { EventData, EventName, OutboxEvent } from './sql.ts';
export { writeEvent } from './sql.ts';
