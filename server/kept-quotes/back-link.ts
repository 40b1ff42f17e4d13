// The PDF's link back to the shop: the shop page the widget runs on, with the kept link in its address
// (`sq-quote=<token>`), so the paper quote opens the same quote in the same shop. The page is the caller's word, so a
// widget may name only a page of the origin its key was just allowed from: a PDF under the shop's name never links
// elsewhere. The merchant's own token (origin null) may name any web page.
import { ValidationError } from '../http/index.ts';

/** The shop page's query parameter that carries a kept link (the widget's LINK_PARAM, widget/src/kept-quote.ts). */
const LINK_PARAM = 'sq-quote';
const MAX_LENGTH = 2000;

export function backLink(page: string, token: string, origin: string | null): string {
  let url: URL;
  try {
    url = new URL(page);
  } catch {
    throw refused('must be the address of a web page');
  }
  if (page.length > MAX_LENGTH || !['http:', 'https:'].includes(url.protocol) || url.username || url.password)
    throw refused(`must be an http or https address of at most ${MAX_LENGTH} characters`);
  if (origin !== null && url.origin !== origin) throw refused(`must be a page of ${origin}, where the widget runs`);
  url.searchParams.set(LINK_PARAM, token);
  url.hash = '';
  return url.toString();
}

const refused = (message: string) => new ValidationError([{ field: 'page', message }]);
