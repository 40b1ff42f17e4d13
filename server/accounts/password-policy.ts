// The password rule at sign-up (docs/security.md): at least 10 characters, not blank, not one character
// repeated, not one of the passwords attackers try first. Long passphrases pass; nothing asks for symbols.
import { ValidationError } from '../http/index.ts';

export const MIN_PASSWORD_LENGTH = 10;

// The most common passwords of at least 10 characters in public breach lists, lower-cased; a guesser tries
// these first, so a throttled login would still fall to them.
const COMMON = new Set([
  '1234567890',
  '0123456789',
  '0987654321',
  '1q2w3e4r5t',
  '1qaz2wsx3edc',
  'qwertyuiop',
  'asdfghjkl;',
  'zxcvbnm,./',
  'password1!',
  'password12',
  'password123',
  'password1234',
  'passw0rd123',
  'p@ssw0rd123',
  'iloveyou12',
  'iloveyou123',
  'qwerty1234',
  'qwerty12345',
  'qwerty123456',
  'qwertyuiop123',
  'abcdefghij',
  'abc1234567',
  'abcd123456',
  'a123456789',
  '123456789a',
  '12345678910',
  '123123123123',
  '1234512345',
  '1122334455',
  '1234554321',
  '0000000000',
  'letmein123',
  'welcome123',
  'welcome1234',
  'administrator',
  'admin12345',
  'admin123456',
  'changeme123',
  'football123',
  'baseball123',
  'princess123',
  'sunshine123',
  'dragon1234',
  'monkey12345',
  'trustno1234',
  'superman123',
  'starwars123',
  'michael123',
  'whatever123',
  'computer123',
  'internet123',
  'slicequote',
  'slicequote1',
  'slicequote123',
]);

function problem(password: string): string | null {
  const chars = [...password];
  if (password.trim() === '') return 'must not be blank or only spaces';
  if (chars.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters long`;
  if (new Set(chars).size === 1) return 'must not be one character repeated';
  if (COMMON.has(password.trim().toLowerCase()))
    return 'is one of the most common passwords; choose another (a few unrelated words work well)';
  return null;
}

/** Throws 400 weak_password naming the field `password` when the password breaks the rule. */
export function checkPasswordPolicy(password: string): void {
  const message = problem(password);
  if (message) throw new ValidationError([{ field: 'password', message }], 400, 'weak_password');
}
