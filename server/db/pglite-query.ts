// Queries on PGlite in one call into the database, each SQL text prepared once. PGlite's own query() calls into
// the database six times per statement (parse, describe the statement to learn the parameter types, bind,
// describe, execute, sync) and plans it afresh every time, which was most of the cost of a cached API request on
// the embedded database. Here the messages go in together, and a statement the process has run before is only
// bound and executed: PostgreSQL keeps its plan. Parameters are sent as text with their types left to the server,
// encoded by node-postgres's own rules: the very encoding the PostgreSQL pool uses, so a query behaves the same
// on both databases.
import { type PGlite, parse, protocol } from '@electric-sql/pglite';
import pgUtils from 'pg/lib/utils.js';

const { serialize } = protocol;

/** Distinct SQL texts kept prepared; beyond it a statement is parsed each time (the code has a few hundred). */
const MAX_PREPARED = 2000;
/**
 * A prepared statement that no longer fits: gone (invalid_sql_statement_name), or its result columns changed
 * under it since a migration altered a table (feature_not_supported: "cached plan must not change result type").
 */
const STALE_STATEMENT = new Set(['26000', '0A000']);

export type PgliteQuery = <T>(sql: string, params: unknown[], inTransaction: boolean) => Promise<T[]>;

/**
 * The query function of one PGlite database. `inTransaction`: the caller already holds PGlite's transaction
 * lock (a query of db.transaction's callback); otherwise a query waits for any open transaction to end first, as
 * PGlite's own query() does, so no statement of another request lands inside it.
 */
export function createPgliteQuery(pg: PGlite): PgliteQuery {
  const prepared = new Map<string, string>(); // SQL text → statement name
  let named = 0;

  function call(message: Uint8Array, inTransaction: boolean) {
    const run = () => pg._runExclusiveQuery(() => pg.execProtocol(message, { syncToFs: !inTransaction }));
    return inTransaction ? run() : pg._runExclusiveTransaction(run);
  }

  // Closing a statement that does not exist is no error; nor may a failed close hide the error that led to it.
  const close = (name: string, inTransaction: boolean) =>
    call(Buffer.concat([serialize.close({ type: 'S', name }), serialize.sync()]), inTransaction).catch(() => {});

  return async function query<T>(sql: string, params: unknown[], inTransaction: boolean): Promise<T[]> {
    const known = prepared.get(sql);
    // '' is the unnamed statement, parsed again next time.
    const fresh = known === undefined ? (prepared.size < MAX_PREPARED ? `sq_${++named}` : '') : undefined;
    const statement = known ?? fresh ?? '';
    const message = Buffer.concat([
      ...(fresh !== undefined ? [serialize.parse({ name: fresh, text: sql, types: [] })] : []),
      serialize.bind({ statement, values: params.map((v) => pgUtils.prepareValue(v)) }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    let messages: Awaited<ReturnType<typeof call>>['messages'];
    try {
      ({ messages } = await call(message, inTransaction));
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (known !== undefined && STALE_STATEMENT.has(code)) {
        prepared.delete(sql);
        await close(known, inTransaction);
        // Inside a transaction the error has aborted it: the caller's transaction fails, the next use re-prepares.
        if (!inTransaction) return query<T>(sql, params, inTransaction);
      }
      // The statement may have been prepared before its execution failed: close it rather than leak it.
      if (fresh) await close(fresh, inTransaction);
      throw err;
    }
    if (fresh) prepared.set(sql, fresh);
    return (parse.parseResults(messages, pg.parsers)[0]?.rows ?? []) as T[];
  };
}
