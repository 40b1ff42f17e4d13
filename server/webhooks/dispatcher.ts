// Webhook delivery: turns outbox events into deliveries and attempts them. (Placeholder until the
// webhook pipeline lands: events stay in the outbox, nothing is lost.)
import type { Deps } from '../deps.ts';

export interface EventPump {
  /** Called after a transaction that wrote outbox events commits: deliver without waiting for the sweep. */
  wake(): void;
  start(): void;
  stop(): Promise<void>;
}

export function createEventPump(_deps: Omit<Deps, 'events'>): EventPump {
  return { wake() {}, start() {}, async stop() {} };
}
