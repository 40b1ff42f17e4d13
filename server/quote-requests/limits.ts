// What one quote request may hold and how many a shopper may send: a shop's public key is anyone's, so a request
// is bounded in size and in number like every other thing a shopper can make the server keep.
export const REQUEST_LIMITS = {
  name: 100,
  /** RFC 5321's longest path. */
  email: 254,
  note: 2000,
  /** Requests one shopper session may send per window. */
  perSession: 10,
  windowMs: 60 * 60_000,
} as const;
