// The time left a waiting shopper reads (docs/instant-price.md, "Progress a shopper believes"). The server's figure
// is read every two seconds and may move either way as the slicer reports its stages and the queue changes; what the
// shopper sees only counts down, smoothly, from the latest figure it may believe, and never below zero ("almost
// done"). It goes up only with a reason the server gave, and then says it in words: the queue grew, the part waits
// for others sliced first or for the same slice under way, or the slice is slower than predicted.
// Pure functions of the readings and the clock's `now` (ms), so that a test drives them without waiting.

/** Why the server's figure is more than the quote's own slice (the Job's `expected_remaining_reason`). */
export type ServerReason = 'queue' | 'same_slice' | 'slower_than_predicted';

/** One reading of a job, as GET /v2/jobs answered it. */
export interface TimeLeftReading {
  seconds: number | null;
  reason: ServerReason | null;
  /** Slices the job waits for while queued (`slices_ahead`); null while slicing. */
  ahead: number | null;
}

/** Why the time shown went up, in the words the shopper reads beside it. */
export type RaiseReason = 'queue' | 'queue_grew' | 'same_slice' | 'ahead_slower' | 'slower';

/** Short: on a phone they stand in the sticky price bar, which stays under 15 % of the screen. */
export const RAISE_WORDS: Record<RaiseReason, string> = {
  queue: 'other parts go first',
  queue_grew: 'the queue grew',
  same_slice: 'same slice under way',
  ahead_slower: 'parts ahead are slower',
  slower: 'slower than predicted',
};

/** The server's reason as said with a figure that did not go up (the first, or a lower one). */
const SAID: Record<ServerReason | 'none', RaiseReason | null> = {
  queue: 'queue',
  same_slice: 'same_slice',
  slower_than_predicted: 'slower',
  none: null,
};

/** What the shopper is shown: a figure that counts down from `at`, and why it last went up. */
export interface TimeLeft {
  /** Seconds left at `at` (ms on the page's clock). */
  seconds: number;
  at: number;
  /** The server's reason for the figure followed: a reason that appears is news, one that stays is not. */
  basis: ServerReason | null;
  ahead: number | null;
  /** Why the figure is more than the slice's own, said with it: the server's reason, or why it went up. */
  raised: RaiseReason | null;
}

/** The server rounds its figure up to whole seconds: a reading this much above the countdown is the same figure. */
const ROUNDING_S = 1;

/** Seconds left now, counted down from the figure followed; never below zero. */
export function secondsLeft(t: TimeLeft, now: number): number {
  return Math.max(0, t.seconds - (now - t.at) / 1000);
}

/**
 * Why a reading above the countdown may raise it, or null when it may not: a reason that was not there before, a
 * queue that grew, or the same reason still there once the countdown has run out (it took longer again).
 */
export function raiseReason(prev: TimeLeft, r: TimeLeftReading, left: number): RaiseReason | null {
  if (!r.reason) return null;
  if (r.reason === 'queue' && prev.ahead !== null && r.ahead !== null && r.ahead > prev.ahead) return 'queue_grew';
  const news = r.reason !== prev.basis;
  if (r.reason === 'slower_than_predicted') return news || left <= 0 ? 'slower' : null;
  if (news) return r.reason;
  if (left > 0) return null;
  return r.reason === 'queue' ? 'ahead_slower' : 'slower';
}

/** The time left to show after a new reading at `now`: lower at once, higher only with a reason, else counting on. */
export function followTimeLeft(prev: TimeLeft | null, r: TimeLeftReading, now: number): TimeLeft | null {
  if (r.seconds === null) return prev;
  const fresh = { seconds: r.seconds, at: now, basis: r.reason, ahead: r.ahead };
  if (!prev || r.seconds < secondsLeft(prev, now)) return { ...fresh, raised: SAID[r.reason ?? 'none'] };
  const left = secondsLeft(prev, now);
  // Its reason is said while the server still gives one (a part no longer queued is not "waiting for others").
  const kept = { ...prev, basis: r.reason, ahead: r.ahead, raised: r.reason ? prev.raised : null };
  if (r.seconds <= left + ROUNDING_S) return kept;
  const why = raiseReason(prev, r, left);
  // Without a reason the shopper keeps counting down: the figure is noise, or the wait ahead was underestimated.
  return why ? { ...fresh, raised: why } : kept;
}

/**
 * What the shopper reads, in parts: `lead` ("exact price in ", which a phone's price bar leaves to screen readers),
 * the figure ("~4 s"; "almost done" at zero; "exact price soon" before the first) and why it is what it is.
 */
export function timeLeftParts(t: TimeLeft | null, now: number): { lead: string; figure: string; why: string | null } {
  if (!t) return { lead: '', figure: 'exact price soon', why: null };
  const left = secondsLeft(t, now);
  const why = t.raised ? RAISE_WORDS[t.raised] : null;
  if (left <= 0) return { lead: '', figure: 'almost done', why };
  const s = Math.ceil(left);
  return { lead: 'exact price in ', figure: `~${s < 60 ? `${s} s` : `${Math.round(s / 60)} min`}`, why };
}

/** The same in one line: "exact price in ~4 s", "exact price in ~9 s — slower than predicted", "almost done". */
export function timeLeftWords(t: TimeLeft | null, now: number): string {
  const { lead, figure, why } = timeLeftParts(t, now);
  return `${lead}${figure}${why ? ` — ${why}` : ''}`;
}
