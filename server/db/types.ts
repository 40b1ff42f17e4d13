// The database interface every query module and migration is written against: PGlite and PostgreSQL alike.
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in one transaction; rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs SQL text that may hold several statements (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Calls onNotify on every NOTIFY on the channel, from any process of the deployment (PostgreSQL LISTEN on a
   * dedicated connection, re-established when it drops). PGlite is one process: its wake-ups stay in process,
   * and only notifications sent by the database itself (triggers) arrive through here.
   */
  listen(channel: string, onNotify: () => void): Promise<void>;
  /** Wakes the listeners of the channel in every process (PostgreSQL NOTIFY); nothing on PGlite. */
  notify(channel: string): Promise<void>;
  close(): Promise<void>;
}
