// Classifies IP addresses for outbound webhook delivery.
//
// The rule is deny-by-default: an address passes only when it is known to be
// globally routable unicast, or when the operator explicitly allowed it through
// WEBHOOK_ALLOW_PRIVATE_CIDRS (passed in as a parameter; this module never reads
// process.env so that tests and several configurations can coexist).
//
// ipaddr.js names the IANA special ranges; what it does not do is look inside
// IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4, Teredo). Those
// are unwrapped here and the embedded address is judged by the IPv4 rules,
// because traffic to them can end up at that IPv4 address.
import ipaddr from 'ipaddr.js';

type IP = ipaddr.IPv4 | ipaddr.IPv6;

export interface AddressPolicy {
  /** CIDRs (already validated with parseCidrList) whose addresses may be contacted even if private. */
  allowPrivateCidrs: string[];
}

export type Verdict = { ok: true } | { ok: false; range: string };

/**
 * Parses the comma-separated WEBHOOK_ALLOW_PRIVATE_CIDRS value.
 * Empty entries are ignored; anything else must be `address/prefix` with a
 * plain dotted-quad IPv4 or an IPv6 address. Throws an Error naming the bad entry.
 */
export function parseCidrList(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map(normaliseCidr);
}

function normaliseCidr(entry: string): string {
  // ipaddr.js would accept "0x7f.1/8" or "10/8"; an operator setting that only
  // names a range is clearer when it is written the ordinary way.
  const valid = entry.includes(':') ? ipaddr.IPv6.isValidCIDR(entry) : ipaddr.IPv4.isValidCIDRFourPartDecimal(entry);
  if (!valid) {
    throw new Error(
      `WEBHOOK_ALLOW_PRIVATE_CIDRS: "${entry}" is not a CIDR (expected e.g. 127.0.0.1/32, 10.0.0.0/8 or ::1/128)`,
    );
  }
  const [address, prefix] = ipaddr.parseCIDR(entry);
  return `${address.toString()}/${prefix}`;
}

/** Parses an address as returned by a resolver or a URL host; null when it is not an IP address. */
export function parseAddress(text: string): IP | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  // Only strict dotted-quad IPv4 is accepted above: other notations must have
  // been canonicalised by the URL parser already, and a resolver never returns them.
  if (ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare);
  return null;
}

/** The address to connect to: an IPv4-mapped IPv6 address is reduced to its IPv4 form. */
export function canonicalAddress(ip: IP): IP {
  return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip;
}

export function isAllowedByPolicy(ip: IP, policy: AddressPolicy): boolean {
  const candidate = canonicalAddress(ip);
  return policy.allowPrivateCidrs.some((cidr) => {
    const range = ipaddr.parseCIDR(cidr);
    // ipaddr.js throws when kinds differ, so compare like with like.
    return range[0].kind() === candidate.kind() && candidate.match(range);
  });
}

/** Decides whether an address may be contacted under the policy. */
export function judgeAddress(ip: IP, policy: AddressPolicy): Verdict {
  if (isAllowedByPolicy(ip, policy)) return { ok: true };
  return ip.kind() === 'ipv4' ? judgeV4(ip as ipaddr.IPv4) : judgeV6(ip as ipaddr.IPv6);
}

function judgeV4(ip: ipaddr.IPv4): Verdict {
  const range = ip.range();
  // 'unicast' is ipaddr.js's name for "none of the special ranges".
  return range === 'unicast' ? { ok: true } : { ok: false, range };
}

// 2000::/3 is the only IPv6 space IANA allocates for global unicast; anything
// outside it that ipaddr.js still calls 'unicast' (e.g. ::a.b.c.d, 4000::) is
// unassigned or deprecated and is refused.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

function judgeV6(ip: ipaddr.IPv6): Verdict {
  const range = ip.range();
  switch (range) {
    case 'ipv4Mapped':
      return embedded('ipv4Mapped', [ip.toIPv4Address()]);
    case 'rfc6052':
      // Only the well-known /96 has a fixed embedding position; the local-use
      // 64:ff9b:1::/48 (RFC 8215) prefix is site-specific and refused outright.
      return ip.match(NAT64_WELL_KNOWN)
        ? embedded('nat64', [v4FromParts(ip.parts[6]!, ip.parts[7]!)])
        : { ok: false, range: 'nat64LocalUse' };
    case '6to4':
      return embedded('6to4', [v4FromParts(ip.parts[1]!, ip.parts[2]!)]);
    case 'teredo':
      // Teredo carries the server address in clear and the client address
      // bit-inverted (RFC 4380 section 4); either could be a pivot.
      return embedded('teredo', [
        v4FromParts(ip.parts[2]!, ip.parts[3]!),
        v4FromParts(ip.parts[6]! ^ 0xffff, ip.parts[7]! ^ 0xffff),
      ]);
    case 'unicast':
      return ip.match(GLOBAL_UNICAST_V6) ? { ok: true } : { ok: false, range: 'notGlobalUnicast' };
    default:
      return { ok: false, range };
  }
}

function embedded(wrapper: string, inner: ipaddr.IPv4[]): Verdict {
  for (const v4 of inner) {
    const verdict = judgeV4(v4);
    if (!verdict.ok) return { ok: false, range: `${wrapper}(${v4.toString()}: ${verdict.range})` };
  }
  return { ok: true };
}

function v4FromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
