// The demo shop's own page script: a cart filled from the widget's sq-add-to-cart events, and the
// orders panel, which shows what the shop's backend received through verified webhooks.
const cart = [];
const money = (value, currency) => new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(value);

function item(children, className) {
  const li = document.createElement('li');
  if (className) li.className = className;
  li.append(...children);
  return li;
}

function text(value, tag = 'div') {
  const el = document.createElement(tag);
  el.textContent = value;
  return el;
}

function renderCart() {
  const list = document.getElementById('cart');
  list.replaceChildren(
    ...cart.map((line) => {
      const img = document.createElement('img');
      img.alt = '';
      if (line.thumbnail) img.src = line.thumbnail;
      // The widget's summary says what to make: material, colour, quality, infill, size, unit, scale, orientation.
      const desc = document.createElement('div');
      desc.append(
        text(`${line.quantity} × ${line.file_name} — ${money(line.total_price, line.currency)}`),
        text(line.summary, 'small'),
        text(`signed quote ${line.quote_id}, valid until ${new Date(line.expires_at).toLocaleString()}`, 'small'),
      );
      return item([img, desc], 'cart-line');
    }),
  );
  const count = cart.reduce((n, l) => n + l.quantity, 0);
  document.getElementById('cart-count').textContent = `Cart: ${count} item${count === 1 ? '' : 's'}`;
  const total = cart.reduce((sum, l) => sum + l.total_price, 0);
  document.getElementById('cart-total').textContent = cart.length ? `Total: ${money(total, cart[0].currency)}` : '';
}

async function refreshOrders() {
  try {
    const res = await fetch('/orders', { cache: 'no-store' });
    const { data } = await res.json();
    const list = document.getElementById('orders');
    if (!data.length) return;
    list.replaceChildren(
      ...data.map((o) =>
        item(
          [
            text(
              `✔ ${o.data.quantity} × ${o.data.fileName} (${o.data.material}${o.data.color ? `, ${o.data.color}` : ''}) — ${money(o.data.totalPrice, o.data.currency)}`,
            ),
            text(
              `quote ${o.data.quoteId} · webhook signature verified · quote signature ${o.quote.status} · ${new Date(o.received_at).toLocaleTimeString()}`,
              'small',
            ),
          ],
          'order',
        ),
      ),
    );
  } catch {
    // The panel is a demo aid; a missed poll is retried on the next tick.
  }
}

document.addEventListener('sq-add-to-cart', (e) => {
  // One part's event is the line itself; <slice-quote multiple> sends {lines: [...]}, one line per part.
  cart.push(...(e.detail.lines ?? [e.detail]));
  renderCart();
  // The lines are in this shop's cart: the widget may tell the shopper so (unaccepted, it says the shop will
  // contact them, and the line stays unacknowledged in the merchant's orders).
  e.detail.accept();
  // The webhook is sent right after the widget's add-to-cart call; look for it promptly.
  setTimeout(refreshOrders, 300);
});
document.addEventListener('sq-error', (e) => console.info('slice-quote error:', e.detail));
void refreshOrders();
setInterval(refreshOrders, 2000);
