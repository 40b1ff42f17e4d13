// Reading query results (Queryable.query returns rows). Kept apart from index.ts so the SQL modules that use it
// load no database driver.

/**
 * The row a statement always returns (INSERT … RETURNING without ON CONFLICT, an upsert, an aggregate without
 * GROUP BY, an UPDATE of a row known to exist). None is a bug, thrown here rather than read later as undefined.
 */
export function firstRow<T>(rows: readonly T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('the query returned no row where one was certain');
  return row;
}
