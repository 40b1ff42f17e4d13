// Webhook delivery: turns outbox events into deliveries and attempts them.
//
// A pass = (1) dispatch: move undispatched outbox events into delivery rows, one per matching active webhook,
// with body and signature fixed, in one transaction per batch; (2) claim: lease due deliveries up to the free
// slots and start their attempts without awaiting them, so a slow receiver holds one slot, not the pump.
// Passes run on wake() (right after a request committed events), when an attempt finishes (its slot is free
// again), and on the sweep timer (retries, and deliveries whose lease ran out because a process died).
// Everything that matters lives in the database, so several processes can run pumps side by side.

import type { Db } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { newId } from '../ids.ts';
import { attemptDelivery } from './attempt.ts';
import { claimDueDeliveries } from './attempts-sql.ts';
import type { Random } from './backoff.ts';
import { claimUndispatchedEvents, markEventDispatched, matchingWebhooks } from './dispatch-sql.ts';
import { eventBody, type WebhookEvent } from './events.ts';
import { type DeliverySettings, deliverySettings, MAX_IN_FLIGHT, MAX_IN_FLIGHT_PER_WEBHOOK } from './settings.ts';
import { signBody } from './signature.ts';
import { insertDelivery } from './sql.ts';
import type { Resolver } from './url-guard.ts';

export interface EventPump {
  /** Called after a transaction that wrote outbox events commits: deliver without waiting for the sweep. */
  wake(): void;
  /**
   * One pass now (after the one running): dispatches waiting events, attempts what is due by the clock, and
   * resolves once those attempts are recorded. For operators' scripts and tests that must know a pass ran.
   */
  sweep(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

const EVENT_BATCH = 50;

/** One transaction per batch: the deliveries exist if and only if the event is marked dispatched. */
export async function dispatchEvents(db: Db, limit = EVENT_BATCH): Promise<number> {
  return db.transaction(async (tx) => {
    const events = await claimUndispatchedEvents(tx, limit);
    for (const e of events) {
      const body = eventBody(e.payload);
      for (const hook of await matchingWebhooks(tx, e)) {
        await insertDelivery(tx, {
          id: newId('dlv'),
          webhook_id: hook.id,
          account_id: e.account_id,
          event_id: e.id,
          // matchingWebhooks returned only webhooks subscribed to this event, so it is one of the names they hold.
          event: e.event as WebhookEvent,
          body,
          signature: signBody(hook.secret, body),
          resent_from: null,
        });
      }
      await markEventDispatched(tx, e.seq);
    }
    return events.length;
  });
}

async function dispatchAll(db: Db): Promise<void> {
  while ((await dispatchEvents(db)) === EVENT_BATCH) {
    // a full batch: there may be more
  }
}

/** What the pump needs: the database, its settings and a log. */
export type PumpPorts = Pick<Deps, 'config' | 'db' | 'log' | 'now'>;

/** For tests: production uses the system resolver and Math.random for the retries' jitter. */
export interface PumpOptions {
  resolver?: Resolver;
  random?: Random;
}

/**
 * Builds the pump. Parses WEBHOOK_ALLOW_PRIVATE_CIDRS here, at start-up, so a malformed value stops the
 * process before it serves anything.
 */
export function createEventPump(deps: PumpPorts, opts: PumpOptions = {}): EventPump {
  const settings = deliverySettings(deps.config);
  return new Pump(deps, settings, opts);
}

class Pump implements EventPump {
  private started = false;
  private stopping = false;
  private pass: Promise<void> | null = null;
  private passAgain = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout | null = null;
  private claims = 0;
  private readonly id = newId('pump');

  constructor(
    private readonly deps: PumpPorts,
    private readonly settings: DeliverySettings,
    private readonly opts: PumpOptions,
  ) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    // An API-only process makes first attempts for the events it writes; retries and reclaims are the
    // sweep's, which runs in worker processes (and in the default single-process mode).
    if (this.deps.config.workerRole !== 'api') {
      this.timer = setInterval(() => this.kick(), this.settings.sweepIntervalMs);
      this.timer.unref();
    }
    this.kick(); // events written while no pump was running
  }

  wake(): void {
    this.kick();
  }

  async sweep(): Promise<void> {
    while (this.pass) await this.pass;
    this.kick();
    await this.pass;
    await Promise.allSettled([...this.inFlight]);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    await this.pass;
    // Attempts are bounded (DNS budget + timeout); waiting lets them record their outcome before the
    // database closes, instead of leaving leases to run out.
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Runs a pass now, or right after the current one: wake-ups are coalesced, never lost. */
  private kick(): void {
    if (!this.started || this.stopping) return;
    if (this.pass) {
      this.passAgain = true;
      return;
    }
    this.pass = this.runPass()
      .catch((err) => this.deps.log.error('webhooks: delivery pass failed; the sweep will try again', err))
      .finally(() => {
        this.pass = null;
        if (this.passAgain) {
          this.passAgain = false;
          this.kick();
        }
      });
  }

  private async runPass(): Promise<void> {
    await dispatchAll(this.deps.db);
    const free = MAX_IN_FLIGHT - this.inFlight.size;
    if (free <= 0 || this.stopping) return;
    // A fresh owner per claim: an attempt that overran its lease can never record over a newer claim,
    // even one made by this same process.
    const owner = `${this.id}:${++this.claims}`;
    const claimed = await claimDueDeliveries(this.deps.db, {
      owner,
      limit: free,
      perWebhook: MAX_IN_FLIGHT_PER_WEBHOOK,
      leaseMs: this.settings.leaseMs,
      now: this.deps.now(),
    });
    for (const d of claimed) {
      if (d.reclaimed) this.deps.log.info('webhooks: retrying an interrupted attempt', { delivery_id: d.id });
      const attempt: Promise<unknown> = attemptDelivery(
        { db: this.deps.db, settings: this.settings, ...this.opts, now: () => this.deps.now() },
        d,
      )
        .then((state) => {
          if (state === null) {
            this.deps.log.error(
              `webhooks: the outcome of ${d.id} was not recorded: its lease ran out first (the attempt or the database was too slow), so it may be sent again`,
            );
          }
        })
        .catch((err) =>
          this.deps.log.error(
            `webhooks: attempt of ${d.id} failed to complete; its lease will expire and it will be retried`,
            err,
          ),
        )
        .finally(() => {
          this.inFlight.delete(attempt);
          this.kick();
        });
      this.inFlight.add(attempt);
    }
  }
}

declare module '../deps.ts' {
  interface Deps {
    /** Delivers outbox events; wake() after committing a transaction that wrote events. */
    events: EventPump;
  }
}
