// The widget snippet a merchant copies (widget keys page, Overview): the script, the element, and a listener
// that connects the shop's cart (docs/widget.md, "Connecting your cart"). As copied, the listener takes nothing
// (its cart lines are comments to fill in), so the widget asks shoppers for a quote request (a name and an e-mail
// the shop sends the order link to), and the dashboard's Orders page lists every line and request, until the
// merchant connects a cart.
export const WIDGET_SCRIPT = '/widget/slice-quote.js';

/** The widget alone: its script and its element (what the dashboard's live preview shows). */
export function widgetTags(origin: string, key: string): string {
  return `<script type="module" src="${origin}${WIDGET_SCRIPT}"></script>
<slice-quote api="${origin}" key="${key}"></slice-quote>`;
}

export function embedSnippet(origin: string, key: string): string {
  return `${widgetTags(origin, key)}
<script>
  // Connect your cart: put the added parts in it, then call e.detail.accept() so the widget tells the
  // shopper "Added to your cart". Until then it asks the shopper for a name and an e-mail to send them a
  // link to order; every added part and every request is listed under Orders in your dashboard.
  document.addEventListener('sq-add-to-cart', (e) => {
    const lines = e.detail.lines ?? [e.detail]; // each: quote_id, quantity, total_price, currency, signature, ...
    // myCart.add(lines);
    // e.detail.accept();
  });
</script>`;
}
