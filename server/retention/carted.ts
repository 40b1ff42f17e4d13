// Was a shopper's upload added to a cart? The one place that knows where cart additions are recorded: the
// `cart_lines` table (every add to a cart, docs/widget.md), and `quote_requests` (a part the shopper asked the shop
// to price by hand: the merchant needs the file as for an order). The SQL condition takes the alias of the `files`
// row it is about, so the retention queries read `${cartedFile('f')}`.

/** True for a file (alias `file`, a `files` row) that a shopper added to a cart or asked the shop to price. */
export const cartedFile = (file: string) =>
  `(EXISTS (SELECT 1 FROM cart_lines cart WHERE cart.file_id = ${file}.id AND cart.account_id = ${file}.account_id)
    OR EXISTS (SELECT 1 FROM quote_requests rq WHERE rq.file_id = ${file}.id AND rq.account_id = ${file}.account_id))`;
