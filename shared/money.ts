// Currencies and exact money (docs/pricing.md): ISO 4217 codes with their minor-unit digits, and the
// rounding of an amount to integer minor units. Pure TypeScript: the server, widget and dashboard share it.

// ISO 4217 list one, current codes with a number of minor units (the "N.A." codes such as XAU or XDR are
// not money a shop can quote in). Not Intl's table: ICU uses cash digits (it gives HUF or IQD 0 digits).
const BY_DIGITS: Record<number, string> = {
  0: 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF',
  2:
    'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF ' +
    'CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD ' +
    'HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT ' +
    'MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR ' +
    'SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU ' +
    'UZS VED VES WST XCD XCG YER ZAR ZMW ZWG',
  3: 'BHD IQD JOD KWD LYD OMR TND',
  4: 'CLF UYW',
};

const DIGITS = new Map<string, number>(
  Object.entries(BY_DIGITS).flatMap(([digits, codes]) => codes.split(' ').map((c) => [c, Number(digits)] as const)),
);

/** Every accepted currency code, sorted. */
export const CURRENCY_CODES: readonly string[] = [...DIGITS.keys()].sort();

export function isCurrencyCode(code: unknown): boolean {
  return typeof code === 'string' && DIGITS.has(code);
}

/** Decimal places of a currency's minor unit (USD 2, JPY 0, KWD 3); an unknown code is an error, never 2. */
export function currencyDigits(currency: string): number {
  const digits = DIGITS.get(currency);
  if (digits === undefined) throw new RangeError(`${currency} is not an ISO 4217 currency code`);
  return digits;
}

/**
 * Rounds a non-negative amount already scaled to minor units to a whole number, half up. The amount is first
 * read to 15 significant digits, so that a decimal input such as 1.005 × 100 (100.49999999999999 in binary)
 * rounds as on paper, to 101.
 */
export function roundHalfUp(scaled: number): number {
  const decimal = Number(scaled.toPrecision(15));
  return Math.sign(decimal) * Math.round(Math.abs(decimal));
}

/** A major-unit amount (12.345) in integer minor units of a currency (1235 for USD). */
export function toMinor(major: number, currency: string): number {
  return roundHalfUp(major * 10 ** currencyDigits(currency));
}

/** Integer minor units back to the major-unit number the API shows (1235 → 12.35 for USD). */
export function fromMinor(minor: number, currency: string): number {
  return minor / 10 ** currencyDigits(currency);
}
