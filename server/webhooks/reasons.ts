// Refusal reasons as shown to accounts (save-time 400s and a delivery's last_error).
//
// The guard's reason for a name names the address it resolved to. Shown to an account, that would turn the
// webhook form into a lookup service for the server's internal DNS ("db.internal resolves to 10.1.2.3"), so
// the address is dropped; the range (private, loopback, linkLocal, ...) stays, which is enough to act on.
const RESOLVED = /host "([^"]*)" resolves to \S+, which is not public \((.*)\)$/;

export function accountFacingReason(reason: string): string {
  return reason.replace(
    RESOLVED,
    (_m, host: string, range: string) =>
      // "nat64(10.0.0.1: private)" would carry the address too: keep the wrapper's name only.
      `host "${host}" resolves to a non-public address (${range.replace(/\(.*$/, '')})`,
  );
}

/** The operator setting that opens private ranges to receivers (server/config.ts, docs/webhooks.md). */
export const PRIVATE_RECEIVERS_SETTING = 'WEBHOOK_ALLOW_PRIVATE_CIDRS';
/** Where that setting is explained: the guide's "Local development" section. */
export const PRIVATE_RECEIVERS_DOCS = 'docs/webhooks.md#local-development-webhook_allow_private_cidrs';

/**
 * What a merchant refused a private receiver can do about it: a receiver on their own machine or network works
 * once the server's operator lists its range. Named here so the refusal never leaves them guessing the setting.
 */
export const PRIVATE_RECEIVERS_HINT =
  `the server's operator can allow private receivers by listing their range in ${PRIVATE_RECEIVERS_SETTING} ` +
  '(docs/webhooks.md, "Local development")';
