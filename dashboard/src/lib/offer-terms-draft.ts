// The offer's quantity breaks and delivery options as the editor holds them: one row each, with its fields as
// typed and a stable key (so the preselected option follows its row, and a new row's problems wait until the
// merchant typed in it). termsBody() gives exactly what PUT /v2/offer receives; text that is not a number goes as
// typed, so validateOffer (shared/offer.ts) names the row and the field.
import type { Offer } from '../../../shared/offer.ts';
import { numberOrText as numeric } from './profile-rules.ts';
import { newRowKey } from './row-key.ts';

/** From `quantity` pieces on, each costs `percent` less. */
export interface BreakRow {
  key: number;
  quantity: string;
  percent: string;
  /** Added in this editor: its empty fields are not flagged before it is typed in (or saved). */
  isNew: boolean;
}

/** A delivery option: its id follows its label until the id is typed by hand. */
export interface DeliveryRow {
  key: number;
  id: string;
  label: string;
  days: string;
  percent: string;
  amount: string;
  idFromLabel: boolean;
  isNew: boolean;
}

export const breakRow = (quantity = '', percent = '', isNew = true): BreakRow => ({
  key: newRowKey(),
  quantity,
  percent,
  isNew,
});

export const deliveryRow = (o: Partial<Omit<DeliveryRow, 'key'>> = {}): DeliveryRow => ({
  key: newRowKey(),
  id: '',
  label: '',
  days: '',
  percent: '',
  amount: '',
  idFromLabel: true,
  isNew: true,
  ...o,
});

export function breakRows(breaks: Offer['quantity_breaks'] | undefined): BreakRow[] {
  return (breaks ?? []).map((b) => breakRow(String(b.min_quantity), String(b.discount_percent), false));
}

export function deliveryRows(options: Offer['lead_times'] | undefined): DeliveryRow[] {
  return (options ?? []).map((o) =>
    deliveryRow({
      id: o.id,
      label: o.label,
      days: String(o.business_days),
      percent: String(o.surcharge_percent ?? 0),
      amount: String(o.surcharge_amount ?? 0),
      idFromLabel: false,
      isNew: false,
    }),
  );
}

/** "5 %" and "5" are the same percent; an empty surcharge is none (0). */
const percentOf = (text: string) => numeric(text.replace('%', '').trim());
const surcharge = (text: string, read: (t: string) => unknown) => (text.trim() === '' ? 0 : read(text));

export function breaksBody(rows: BreakRow[]): Record<string, unknown>[] {
  return rows.map((r) => ({ min_quantity: numeric(r.quantity.trim()), discount_percent: percentOf(r.percent) }));
}

export function deliveryBody(rows: DeliveryRow[]): Record<string, unknown>[] {
  return rows.map((r) => ({
    id: r.id.trim(),
    label: r.label.trim(),
    business_days: numeric(r.days.trim()),
    surcharge_percent: surcharge(r.percent, percentOf),
    surcharge_amount: surcharge(r.amount, (t) => numeric(t.trim())),
  }));
}

const DELIVERY_FIELDS: Record<string, string> = {
  id: 'id',
  label: 'label',
  business_days: 'business days',
  surcharge_percent: 'surcharge (%)',
  surcharge_amount: 'surcharge amount',
};

/** "Break 2: quantity", "Delivery option 2 “Express”: business days": the row and the field, in words. */
export function termsFieldLabel(head: string, index: number, sub: string | undefined, delivery: DeliveryRow[]) {
  if (head === 'quantity_breaks') {
    const field = sub === 'min_quantity' ? 'quantity' : sub === 'discount_percent' ? 'discount' : sub;
    return `Break ${index + 1}${field ? `: ${field}` : ''}`;
  }
  const label = delivery[index]?.label.trim();
  const row = `Delivery option ${index + 1}${label ? ` “${label}”` : ''}`;
  return sub ? `${row}: ${DELIVERY_FIELDS[sub] ?? sub}` : row;
}
