// The e-mail that takes a priced request's link to the shopper (SMTP_URL; docs/deployment.md, "E-mail"). Sent after
// the price is committed: a failed send loses nothing (the dashboard shows why, and the link to copy).

import { fromMinor, toMinor } from '../../shared/money.ts';
import { currencyDigits } from '../../shared/pricing.ts';
import type { Auth } from '../accounts/access/index.ts';
import type { Deps } from '../deps.ts';
import { SmtpError, sendMail } from '../mail/index.ts';
import { effectiveOffer } from '../offer/index.ts';
import { orderUrl } from './present.ts';
import { type QuoteRequestRow, requestById, setEmailOutcome } from './sql.ts';

const amount = (v: number, currency: string) => `${v.toFixed(currencyDigits(currency))} ${currency}`;

/** The message's words: the part, the line, until when it holds, and the link. */
export function linkMessage(shop: string, contact: string | null, r: QuoteRequestRow, url: string, expires: Date) {
  const currency = r.currency!;
  const unit = r.unit_price!;
  const total = fromMinor(toMinor(unit, currency) * r.quantity, currency);
  const lines = [
    `Hello ${r.name},`,
    '',
    `${shop} has priced your part ${r.file_name}:`,
    `${r.quantity} × ${amount(unit, currency)} = ${amount(total, currency)}`,
    `The price holds until ${expires.toISOString().slice(0, 10)}.`,
    '',
    'Order it here:',
    url,
    '',
    ...(contact ? [`Questions? ${contact}`, ''] : []),
    `You receive this e-mail because you asked ${shop} for a quote.`,
  ];
  return { subject: `Your quote from ${shop}: ${r.file_name}`, text: lines.join('\n') };
}

/** The link's e-mail: the SMTP settings, the request read and its outcome dated on the clock, a failed send logged. */
export type LinkMailPorts = Pick<Deps, 'config' | 'db' | 'log' | 'now'>;

/** Sends the link and records the outcome on the request (sent at, or why not). */
export async function emailLink(deps: LinkMailPorts, auth: Auth, r: QuoteRequestRow, token: string): Promise<void> {
  const smtp = deps.config.smtp!;
  const url = orderUrl(r.page, token);
  const listed = await requestById(deps.db, auth.account.id, r.id);
  if (!url || !listed?.price_expires_at) {
    await setEmailOutcome(deps.db, r.id, token, { error: 'The request names no shop page to link to: copy the link.' });
    return;
  }
  const { offer } = await effectiveOffer(deps.db, auth.account.id, r.widget_key_id);
  const shop = auth.account.shop_name ?? 'The print shop';
  const message = linkMessage(shop, offer.contact, listed, url, listed.price_expires_at);
  try {
    await sendMail(smtp, { to: r.email, ...message }, deps.now());
    await setEmailOutcome(deps.db, r.id, token, { at: deps.now() });
  } catch (e) {
    if (!(e instanceof SmtpError)) throw e;
    deps.log.error(`quote request ${r.id}: e-mail not sent`, e);
    await setEmailOutcome(deps.db, r.id, token, { error: e.message });
  }
}
