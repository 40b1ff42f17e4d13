// Validates webhook receiver URLs (docs/webhooks.md, endpoint rules) at save time and before
// every delivery attempt.
//
// The WHATWG URL parser does the normalisation: it turns every IPv4 notation
// it accepts (decimal 2130706433, octal 0177.0.0.1, hex 0x7f.1, short 127.1,
// percent-encoded and full-width digits, a trailing dot) into a dotted quad and
// every IPv6 literal into its compressed form, so we classify exactly the host
// that a client would connect to instead of re-implementing those notations.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type AddressPolicy, canonicalAddress, judgeAddress, parseAddress, parseCidrList } from './address-policy.ts';

export { type AddressPolicy, parseCidrList };

/** Resolves a host name to all of its addresses (textual IPv4/IPv6). */
export type Resolver = (host: string) => Promise<string[]>;

export type UnsafeUrlCode =
  | 'url_invalid'
  | 'url_too_long'
  | 'url_scheme'
  | 'url_credentials'
  | 'url_private_address'
  | 'url_unresolvable';

export class UnsafeUrlError extends Error {
  readonly code: UnsafeUrlCode;
  readonly reason: string;
  constructor(code: UnsafeUrlCode, reason: string) {
    super(`${code}: ${reason}`);
    this.name = 'UnsafeUrlError';
    this.code = code;
    this.reason = reason;
  }
}

/** Longer URLs are refused; browsers and proxies commonly stop around here too. */
export const MAX_URL_LENGTH = 2048;

const NO_POLICY: AddressPolicy = { allowPrivateCidrs: [] };

export const defaultResolver: Resolver = async (host) => {
  const answers = await lookup(host, { all: true });
  return answers.map((a) => a.address);
};

/**
 * Checks everything that can be checked without DNS: length, syntax, scheme,
 * credentials, and the host when it is an IP literal. Returns the parsed URL.
 */
export function checkUrlSyntax(raw: string, policy: AddressPolicy = NO_POLICY): URL {
  const url = parseUrl(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UnsafeUrlError('url_scheme', `scheme "${url.protocol.slice(0, -1)}" is not allowed; use http or https`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UnsafeUrlError('url_credentials', 'the URL must not contain a user name or password');
  }
  if (url.href.length > MAX_URL_LENGTH) {
    throw new UnsafeUrlError('url_too_long', `the URL is longer than ${MAX_URL_LENGTH} characters once normalised`);
  }
  const host = hostOf(url);
  if (isLocalhostName(host)) {
    localhostAddress(host, policy);
  } else if (isIP(host) !== 0) {
    checkAddress(host, host, policy);
  }
  return url;
}

function parseUrl(raw: string): URL {
  if (typeof raw !== 'string' || raw === '') {
    throw new UnsafeUrlError('url_invalid', 'the URL is empty');
  }
  if (raw.length > MAX_URL_LENGTH) {
    throw new UnsafeUrlError('url_too_long', `the URL is longer than ${MAX_URL_LENGTH} characters`);
  }
  // The URL parser silently strips surrounding spaces and embedded tabs/newlines;
  // refusing them keeps the stored URL identical to the one that was checked.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u0020\u007f]/.test(raw)) {
    throw new UnsafeUrlError('url_invalid', 'the URL contains whitespace or control characters');
  }
  try {
    return new URL(raw);
  } catch {
    throw new UnsafeUrlError('url_invalid', 'the URL cannot be parsed');
  }
}

/** The host name as used for DNS and TLS: no IPv6 brackets, no trailing root dot. */
export function hostOf(url: URL): string {
  const h = url.hostname;
  if (h.startsWith('[')) return h.slice(1, -1);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

// RFC 6761: "localhost" and names under it always mean this machine, whatever
// a resolver says, so they are never sent to one.
function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

function localhostAddress(host: string, policy: AddressPolicy): string {
  for (const candidate of ['127.0.0.1', '::1']) {
    const ip = parseAddress(candidate)!;
    if (judgeAddress(ip, policy).ok) return candidate;
  }
  throw new UnsafeUrlError('url_private_address', `host "${host}" is the local machine (loopback)`);
}

/** Throws unless the address may be contacted; returns the address to connect to. */
function checkAddress(address: string, host: string, policy: AddressPolicy): string {
  const ip = parseAddress(address);
  if (ip === null) {
    throw new UnsafeUrlError('url_unresolvable', `host "${host}" resolved to "${address}", which is not an IP address`);
  }
  const verdict = judgeAddress(ip, policy);
  if (!verdict.ok) {
    const what = address === host ? `address ${address}` : `host "${host}" resolves to ${address}, which`;
    throw new UnsafeUrlError('url_private_address', `${what} is not public (${verdict.range})`);
  }
  return canonicalAddress(ip).toString();
}

/**
 * Full check before a delivery: syntax, then one resolution of the host, then
 * every resolved address must pass. Returns the single address the caller must
 * connect to (no second lookup may happen afterwards).
 */
export async function resolveSafeTarget(
  raw: string,
  policy: AddressPolicy,
  resolver: Resolver = defaultResolver,
): Promise<{ url: URL; address: string; family: 4 | 6 }> {
  const url = checkUrlSyntax(raw, policy);
  const host = hostOf(url);
  const addresses = isLocalhostName(host)
    ? [localhostAddress(host, policy)]
    : isIP(host) !== 0
      ? [host]
      : await resolveAll(host, resolver);
  // Every answer is checked, not only the one we pick: a mixed answer means the
  // name is (or is trying to be) an alias for something internal.
  const checked = addresses.map((a) => checkAddress(a, host, policy));
  const address = checked[0]!; // never empty: resolveAll refuses a name without addresses
  return { url, address, family: isIP(address) === 6 ? 6 : 4 };
}

async function resolveAll(host: string, resolver: Resolver): Promise<string[]> {
  let addresses: string[];
  try {
    addresses = await resolver(host);
  } catch (err) {
    const detail = (err as NodeJS.ErrnoException)?.code ?? (err as Error)?.message ?? String(err);
    throw new UnsafeUrlError('url_unresolvable', `host "${host}" could not be resolved (${detail})`);
  }
  if (!Array.isArray(addresses) || addresses.length === 0) {
    throw new UnsafeUrlError('url_unresolvable', `host "${host}" has no addresses`);
  }
  return addresses;
}
