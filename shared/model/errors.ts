// The one error type every parser throws. `code` is a stable snake_case identifier the API
// returns to clients (see README.md for the table); `message` is a sentence for humans.

export class ModelError extends Error {
  readonly code: string;
  readonly details?: Record<string, unknown>;

  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'ModelError';
    this.code = code;
    if (details !== undefined) this.details = details;
  }
}

/** Throws a ModelError; typed `never` so callers can use it in expressions. */
export function fail(code: string, message: string, details?: Record<string, unknown>): never {
  throw new ModelError(code, message, details);
}

/**
 * A 3MF conformance failure. `rule` names the specification chapter and rule so that the
 * message tells the user which rule the file breaks, not just that it is "invalid".
 */
export function ruleViolation(rule: string, message: string, details?: Record<string, unknown>): never {
  throw new ModelError('3mf_rule_violation', `${message} (3MF ${rule}).`, { rule, ...details });
}
