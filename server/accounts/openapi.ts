// Paths of the account: the authenticated user, and the dashboard's sign-up, log-in, session and API tokens.
import { bearer, csrfHeader, errors, jsonBody, ok, pathParam, session } from '../openapi/index.ts';

export const accountPaths = {
  '/v2/user': {
    get: {
      operationId: 'getUser',
      tags: ['account'],
      summary: 'The authenticated account',
      security: bearer,
      responses: { '200': ok('User', 'The account'), ...errors(401) },
    },
  },
  '/dashboard/api/signup': {
    get: {
      operationId: 'getSignupMode',
      tags: ['dashboard'],
      summary: 'Whether this server lets anyone sign up, only with an invite code, or nobody',
      security: [],
      responses: { '200': ok('SignupMode', 'The sign-up mode (SIGNUP)') },
    },
    post: {
      operationId: 'signup',
      tags: ['dashboard'],
      summary: 'Create an account (free plan) and start a session',
      description:
        "The password must be at least 10 characters, not blank, not one character repeated and not one of the most common passwords; otherwise 400 `weak_password` naming the field `password`. The server's SIGNUP setting decides who may sign up: with `off`, 403 `signup_closed`; with `invite`, the body needs an `invite_code` (403 `invite_required` without one, 403 `invite_invalid` for an unknown, used or expired code, both naming the field `invite_code`); a code signs up one account. An email that already has an account is a log-in attempt: with that account's password the answer is 200 and a session (the owner is logged in), with any other 409 `email_taken` (field `email`), and such tries count in the log-in throttle (429 `login_throttled` with Retry-After while locked), so probing which emails exist is as slow as guessing passwords.",
      security: [],
      requestBody: jsonBody('Credentials'),
      responses: {
        '200': ok('Session', 'The email already had an account and this is its password: logged in'),
        '201': ok('Session', 'Signed up; the session cookie is set'),
        ...errors(400, 403, 409),
      },
    },
  },
  '/dashboard/api/login': {
    post: {
      operationId: 'login',
      tags: ['dashboard'],
      summary: 'Log in and start a session',
      description:
        'Failed logins are throttled per account and client address, with a looser cap per account and per address: while locked, 429 `login_throttled` with Retry-After (docs/security.md).',
      security: [],
      requestBody: jsonBody('Credentials'),
      responses: { '200': ok('Session', 'Logged in; the session cookie is set'), ...errors(400, 401) },
    },
  },
  '/dashboard/api/logout': {
    post: {
      operationId: 'logout',
      tags: ['dashboard'],
      summary: 'End the session',
      security: session,
      parameters: [csrfHeader],
      responses: { '204': { description: 'Logged out' }, ...errors(401, 403) },
    },
  },
  '/dashboard/api/session': {
    get: {
      operationId: 'getSession',
      tags: ['dashboard'],
      summary: "The session's account and CSRF token",
      security: session,
      responses: { '200': ok('Session', 'The session'), ...errors(401) },
    },
  },
  '/dashboard/api/tokens': {
    get: {
      operationId: 'listTokens',
      tags: ['dashboard'],
      summary: 'Live API tokens (no secrets)',
      security: session,
      responses: { '200': ok('TokenList', 'Tokens'), ...errors(401) },
    },
    post: {
      operationId: 'createToken',
      tags: ['dashboard'],
      summary: 'Create an API token (shown only in this response)',
      security: session,
      parameters: [csrfHeader],
      requestBody: jsonBody('TokenRequest'),
      responses: { '201': ok('TokenCreated', 'The new token'), ...errors(400, 401, 403) },
    },
  },
  '/dashboard/api/tokens/{token_id}': {
    delete: {
      operationId: 'revokeToken',
      tags: ['dashboard'],
      summary: 'Revoke a token (effective on the next request)',
      security: session,
      parameters: [pathParam('token_id', 'A token id (tok_...)'), csrfHeader],
      responses: { '200': ok('TokenDeleted', 'Revoked (effective on the next request)'), ...errors(401, 403, 404) },
    },
  },
};
