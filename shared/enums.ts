// The API's one rule for enumerated values (docs/api-conventions.md): any letter case is accepted, and the
// canonical spelling is what is stored and answered. Every enum of a request, query or body, goes through here.

/** The allowed value that `value` spells in any letter case, in its canonical spelling; undefined if none. */
export function canonicalMember<T extends string>(allowed: readonly T[], value: unknown): T | undefined {
  if (typeof value !== 'string') return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const lower = value.toLowerCase();
  return allowed.find((a) => a.toLowerCase() === lower);
}
