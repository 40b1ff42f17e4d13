// What one quote request may hold and how many a shopper may send: a shop's public key is anyone's, so a request
// is bounded in size and in number like every other thing a shopper can make the server keep.
export const REQUEST_LIMITS = {
  name: 100,
  /** RFC 5321's longest path. */
  email: 254,
  note: 2000,
  /**
   * Requests one shopper session may send per window: one per part of the largest widget (`max-parts` is at most 25),
   * whose parts no cart took are requested together, one request each.
   */
  perSession: 25,
  windowMs: 60 * 60_000,
} as const;
