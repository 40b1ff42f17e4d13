// The dashboard's own DOM events, each with its detail: one map, so `emit` checks a detail against its event and
// a listener (`addEventListener`, Lit's `@sq-…=`) receives a typed CustomEvent. All carry the `sq-` prefix
// (docs/dashboard.md, "Events").

import type { OfferView } from './offer.ts';
import type { PrinterPick } from './printer-pick.ts';
import type { Delivery, Profile } from './types.ts';

/** An offer saved or removed in the editor, and what to tell the merchant. */
export interface OfferChanged {
  offer: OfferView;
  message: string;
}

export interface DashboardEventDetails {
  /** A profile form saved its profile (created or changed). */
  'sq-saved': Profile;
  /** The offer editor saved or removed an offer. */
  'sq-offer-changed': OfferChanged;
  /** A secret shown once was dismissed. */
  'sq-dismiss': null;
  /** The merchant logged in or signed up. */
  'sq-signed-in': null;
  /** A test event was queued: its delivery. */
  'sq-test-sent': Delivery;
  /** The test event's delivery finished (or the wait for it ended). */
  'sq-test-done': null;
  /** The printer picker's pick changed: the `library` object of the import, or null while no printer is chosen. */
  'sq-printer-pick': PrinterPick | null;
  /** The Prices page saved: what it said (the profiles it wrote changed). */
  'sq-prices-saved': string;
}

/** On window: an API call answered 401, so the session has ended. */
export const UNAUTHORIZED_EVENT = 'sq-unauthorized';

type DashboardEvents = { [K in keyof DashboardEventDetails]: CustomEvent<DashboardEventDetails[K]> };

declare global {
  interface HTMLElementEventMap extends DashboardEvents {}
  interface WindowEventMap {
    'sq-unauthorized': CustomEvent<null>;
  }
}

/** Fires a dashboard event from `from`; it bubbles, and leaves shadow roots (composed). */
export function emit<K extends keyof DashboardEventDetails>(
  from: EventTarget,
  type: K,
  detail: DashboardEventDetails[K],
): void {
  from.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
}
