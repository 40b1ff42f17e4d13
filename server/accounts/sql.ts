import type { Queryable } from '../db/index.ts';
import { firstRow } from '../db/index.ts';

export interface AccountRow {
  id: string;
  email: string;
  password_hash: string;
  plan: string;
  shop_name: string | null;
  created_at: Date;
}

/** The new account, or undefined when the email is taken (ON CONFLICT DO NOTHING): signup answers 409. */
export async function insertAccountUnlessTaken(
  db: Queryable,
  a: Omit<AccountRow, 'created_at'>,
): Promise<AccountRow | undefined> {
  const [row] = await db.query<AccountRow>(
    `INSERT INTO accounts (id, email, password_hash, plan, shop_name) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING RETURNING *`,
    [a.id, a.email, a.password_hash, a.plan, a.shop_name],
  );
  return row;
}

/** A new account whose email is known to be free (the demo account, tests); throws if it is taken. */
export async function insertAccount(db: Queryable, a: Omit<AccountRow, 'created_at'>): Promise<AccountRow> {
  const row = await insertAccountUnlessTaken(db, a);
  if (!row) throw new Error(`an account with the email ${a.email} already exists`);
  return row;
}

export async function accountByEmail(db: Queryable, email: string): Promise<AccountRow | undefined> {
  const [row] = await db.query<AccountRow>('SELECT * FROM accounts WHERE lower(email) = lower($1)', [email]);
  return row;
}

export async function accountById(db: Queryable, id: string): Promise<AccountRow | undefined> {
  const [row] = await db.query<AccountRow>('SELECT * FROM accounts WHERE id = $1', [id]);
  return row;
}

export async function countAccounts(db: Queryable): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
  return firstRow(rows).n;
}
