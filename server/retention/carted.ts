// Was a shopper's upload added to a cart? The one place that knows where cart additions are recorded: today the
// widget.added_to_cart events in the outbox, which name the file. Both SQL conditions below take the alias of a
// row they are about, so the retention queries read `${cartedFile('f')}`.

/** True for a file (alias `file`, a `files` row) that a shopper added to a cart. */
export const cartedFile = (file: string) =>
  `EXISTS (SELECT 1 FROM outbox_events cart WHERE cart.event = 'widget.added_to_cart'
     AND (cart.payload -> 'data' ->> 'fileId') = ${file}.id AND cart.account_id = ${file}.account_id)`;

/**
 * True for an outbox event (alias `event`) that records a cart addition of a file still stored: the outbox purge
 * keeps it, or the file would look as if it had never been carted.
 */
export const cartRecordOfStoredFile = (event: string) =>
  `(${event}.event = 'widget.added_to_cart' AND EXISTS (SELECT 1 FROM files kept
     WHERE kept.id = (${event}.payload -> 'data' ->> 'fileId') AND kept.account_id = ${event}.account_id))`;
