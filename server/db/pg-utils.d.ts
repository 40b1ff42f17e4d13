// node-postgres's parameter encoding (a value as the text PostgreSQL reads it); @types/pg does not declare it.
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): string | Buffer | null };
  export default utils;
}
