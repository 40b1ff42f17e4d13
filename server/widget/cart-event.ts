// The widget.added_to_cart event of a cart line: the line's own values under the webhook body's camelCase names,
// with what a merchant's backend needs beside them (the file's name, the material and colour, the key and page
// that made the add, the quote). Built from the line, so the answer to the shopper's add and the webhook the shop
// charges from can never disagree on a value.

import type { ContractSchema } from '../openapi/index.ts';
import type { OutboxEvent } from '../outbox/index.ts';
import type { QuoteRow } from '../quotes/index.ts';
import { specResult } from '../quotes/index.ts';

export type CartLine = ContractSchema<'CartLine'>;

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;
type Camelized<T> = { [K in keyof T as CamelCase<K & string>]: T[K] };

/** The same object under camelCase keys (`unit_price` → `unitPrice`). */
function camelized<T extends object>(o: T): Camelized<T> {
  const entries = Object.entries(o).map(([key, value]) => [
    key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
    value,
  ]);
  return Object.fromEntries(entries) as Camelized<T>;
}

export function addedToCartEvent(
  line: CartLine,
  quote: QuoteRow,
  widgetKeyId: string | null,
  origin: string | null,
  at: Date,
): OutboxEvent<'widget.added_to_cart'> {
  // The line's minimum price per part is for the shopper's page; the shop's backend has it in the quote.
  const { minimum_unit_price: _minimum, ...told } = line;
  return {
    account_id: quote.account_id,
    token_id: null,
    event: 'widget.added_to_cart',
    data: {
      ...camelized(told),
      fileName: quote.file_name,
      material: quote.material!,
      color: quote.color!,
      widgetKeyId,
      origin,
      quote: specResult(quote),
    },
    at,
  };
}
