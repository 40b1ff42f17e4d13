// The shop's orders: every add to a cart (cart_lines), as the dashboard's Orders page, GET /v2/widget/cart and
// its CSV export show them, and their acknowledgement by the shop's cart (docs/widget.md, "Orders are never
// lost"). A line no cart acknowledged is still an order: the shop contacts the shopper.

import type { Auth } from '../accounts/access/index.ts';
import type { Deps } from '../deps.ts';
import { ApiError } from '../http/index.ts';
import type { ContractSchema } from '../openapi/index.ts';
import type { Row } from '../usage/index.ts';
import { acknowledgeCartLines, type OrderRow } from './cart-sql.ts';
import { addedBy } from './service.ts';

/** The line as add-to-cart answered it (CartLine). */
interface StoredLine {
  cart_line_id: string;
  quote_id: string;
  file_id: string;
  quantity: number;
  total_price: number;
  currency: string;
  file_revision: number;
  placement: ContractSchema<'CartLine'>['placement'];
  unit_price: number;
  minimum_unit_price?: number | null;
  subtotal: number;
  minimum_line_adjustment: number;
  discount_percent?: number;
  quantity_discount?: number;
  lead_time_surcharge?: number;
  lead_time?: { id: string; label: string; business_days: number; ships_by: string } | null;
  choices: ContractSchema<'CartLine'>['choices'];
  expires_at: string;
  signature: { payload: string; hmac_sha256: string };
}

const caller = (by: string) => by.split(':')[0] as 'shopper' | 'token' | 'session';

export function presentOrder(row: OrderRow): ContractSchema<'Order'> {
  const line = JSON.parse(row.line) as StoredLine;
  return {
    // Lines added before quantity breaks and lead-time options had neither.
    discount_percent: 0,
    quantity_discount: 0,
    lead_time_surcharge: 0,
    lead_time: null,
    // Lines added before the minimum per part was recorded with them.
    minimum_unit_price: null,
    ...line,
    file_name: row.file_name,
    file_url: `/v2/file/${row.file_id}`,
    added_by: caller(row.added_by),
    widget_key_id: row.widget_key_id,
    origin: row.origin,
    status: row.acknowledged_at ? 'acknowledged' : 'unacknowledged',
    acknowledged_at: row.acknowledged_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

export const ORDER_COLUMNS = [
  'cart_line_id',
  'created_at',
  'status',
  'acknowledged_at',
  'quote_id',
  'file_id',
  'file_name',
  'file_revision',
  'unit',
  'scale',
  'orientation',
  'material',
  'color',
  'quality',
  'infill',
  'quantity',
  'unit_price',
  'minimum_unit_price',
  'subtotal',
  'discount_percent',
  'quantity_discount',
  'lead_time_surcharge',
  'minimum_line_adjustment',
  'total_price',
  'currency',
  'lead_time',
  'ships_by',
  'expires_at',
  'signature_payload',
  'signature_hmac_sha256',
  'origin',
  'widget_key_id',
] as const;

export async function* orderCsvRows(rows: AsyncGenerator<OrderRow>): AsyncGenerator<Row> {
  for await (const row of rows) {
    const o = presentOrder(row);
    yield {
      cart_line_id: o.cart_line_id,
      created_at: o.created_at,
      status: o.status,
      acknowledged_at: o.acknowledged_at,
      quote_id: o.quote_id,
      file_id: o.file_id,
      file_name: o.file_name,
      file_revision: o.file_revision,
      unit: o.placement?.unit ?? null,
      scale: o.placement?.scale ?? null,
      orientation: o.placement?.orientation ?? null,
      material: o.choices?.material ?? null,
      color: o.choices?.color ?? null,
      quality: o.choices?.quality_label ?? null,
      infill: o.choices?.infill ?? null,
      quantity: o.quantity,
      unit_price: o.unit_price,
      minimum_unit_price: o.minimum_unit_price ?? null,
      subtotal: o.subtotal,
      discount_percent: o.discount_percent,
      quantity_discount: o.quantity_discount,
      lead_time_surcharge: o.lead_time_surcharge,
      minimum_line_adjustment: o.minimum_line_adjustment,
      total_price: o.total_price,
      currency: o.currency,
      lead_time: o.lead_time?.label ?? null,
      ships_by: o.lead_time?.ships_by ?? null,
      expires_at: o.expires_at,
      signature_payload: o.signature.payload,
      signature_hmac_sha256: o.signature.hmac_sha256,
      origin: o.origin,
      widget_key_id: o.widget_key_id,
    };
  }
}

/**
 * POST /v2/widget/cart/acknowledge: the shop's cart took these lines. A shopper's widget acknowledges its own
 * adds; the merchant (API token, dashboard) any of the shop's. An id not found is 404, naming it.
 */
export async function acknowledge(deps: Pick<Deps, 'db' | 'now'>, auth: Auth, ids: string[]) {
  const by = auth.via === 'widget' ? addedBy(auth) : null;
  await deps.db.transaction(async (tx) => {
    const found = await acknowledgeCartLines(tx, auth.account.id, by, [...new Set(ids)], deps.now());
    const missing = ids.findIndex((id) => !found.includes(id));
    if (missing >= 0) {
      throw new ApiError(404, 'not_found', `cart_line_ids.${missing}: no such cart line: ${ids[missing]}.`, {
        fields: [{ field: `cart_line_ids.${missing}`, message: 'no such cart line' }],
      });
    }
  });
  return { acknowledged: ids };
}
