// What the shopper reads when something goes wrong, by error code. The technical message (triangle
// counts, 3MF rules, origins) is written for the merchant and stays in the `sq-error` event; the
// shopper gets a sentence saying what happened and what they can do. docs/widget.md lists this table.

/** Something is wrong with the file itself: another export usually helps. */
const BROKEN_FILE =
  'This file looks damaged or incomplete, so we cannot read it. Please export it again from your 3D program and upload the new file.';
/** The file is valid but too heavy for the shop's limits. */
const TOO_COMPLEX =
  'This model is too detailed for us to process. Please export it with fewer triangles (a lower resolution) and try again.';
/** The shop's own setup, not the shopper, is at fault. */
const SHOP_SETUP = 'This shop cannot give online quotes at the moment. Please contact the shop.';
/** A passing problem on the server's side. */
const BUSY = 'Our quoting service is busy right now. Please try again in a moment.';

export const SHOPPER_MESSAGES: Readonly<Record<string, string>> = {
  // Reaching the service, and the shop's setup.
  network_error: 'We could not reach the quoting service. Check your internet connection and try again.',
  origin_not_allowed: 'Online quotes are not enabled on this page yet. Please contact the shop.',
  unauthorized: SHOP_SETUP,
  widget_key_forbidden: SHOP_SETUP,
  not_configured: SHOP_SETUP,
  quote_allowance_exhausted:
    'This shop cannot take more online quotes this month. Please contact the shop for a price.',
  storage_quota_exceeded: 'This shop cannot take more uploads right now. Please contact the shop for a price.',
  // What the shop lets its widget spend (docs/limits.md, "Widget budgets").
  shopper_quote_budget_exhausted:
    'You have asked for many prices in a short time. Please wait a while before trying more options.',
  widget_daily_budget_exhausted:
    'This shop cannot give more online quotes today. Please try again tomorrow, or contact the shop for a price.',
  widget_allowance_exhausted:
    'This shop cannot give more online quotes this month. Please contact the shop for a price.',
  widget_storage_exhausted:
    'This shop cannot take more uploads right now. Please try again later, or contact the shop for a price.',
  invalid_text: 'Something in the request could not be read. Please reload the page and try again.',
  material_price_missing: SHOP_SETUP,
  currency_not_offered: SHOP_SETUP,
  price_out_of_range: 'We could not price this model automatically. Please contact the shop for a quote.',
  invalid_shopper_token: 'Your session has expired. Please reload the page and upload your model again.',

  // The file as a whole.
  file_too_large:
    'This file is larger than the shop accepts. Please upload a smaller file, for example with fewer triangles.',
  empty_file: 'This file is empty. Please choose the file again, or export it again from your 3D program.',
  unsupported_format: 'This is not a 3D model we can read. Please upload an STL, 3MF or OBJ file.',
  file_missing: 'No file arrived. Please choose your model again.',
  multiple_files: 'Please upload one model at a time.',
  malformed_multipart: 'Your file did not arrive complete. Please choose it again.',
  too_many_fields: 'Your file did not arrive complete. Please choose it again.',
  fields_too_large: 'Your file did not arrive complete. Please choose it again.',
  json_too_large: 'Something in the request could not be read. Please reload the page and try again.',
  json_too_deep: 'Something in the request could not be read. Please reload the page and try again.',
  request_timeout: 'Your file stopped arriving. Please check your connection and try again.',
  parse_failed:
    'Your browser could not read this model (it may be too large for this device). Please try another browser or a smaller file.',
  model_unreadable: BROKEN_FILE,
  invalid_limits: BROKEN_FILE,

  // Damaged or incomplete files, by format.
  stl_truncated: BROKEN_FILE,
  stl_count_mismatch: BROKEN_FILE,
  stl_syntax: BROKEN_FILE,
  obj_syntax: BROKEN_FILE,
  obj_index_out_of_range: BROKEN_FILE,
  non_finite_vertex: BROKEN_FILE,
  index_out_of_range: BROKEN_FILE,
  invalid_number: BROKEN_FILE,
  zip_invalid: BROKEN_FILE,
  model_part_missing: BROKEN_FILE,
  xml_malformed: BROKEN_FILE,
  xml_dtd_forbidden: BROKEN_FILE,
  xml_too_deep: BROKEN_FILE,
  xml_encoding_unsupported: BROKEN_FILE,
  xml_namespace: BROKEN_FILE,
  xml_token_too_large: BROKEN_FILE,
  xml_too_many_attributes: BROKEN_FILE,
  component_cycle: BROKEN_FILE,
  component_too_deep: BROKEN_FILE,
  project_config_invalid: BROKEN_FILE,
  '3mf_rule_violation': BROKEN_FILE,
  unsupported_extension:
    'This 3MF file uses a feature we cannot print from. Please export it as a plain STL or 3MF and try again.',

  // Too big to process.
  stl_too_many_triangles: TOO_COMPLEX,
  too_many_triangles: TOO_COMPLEX,
  too_many_vertices: TOO_COMPLEX,
  too_many_objects: TOO_COMPLEX,
  too_many_instances: TOO_COMPLEX,
  zip_too_many_entries: TOO_COMPLEX,
  inflated_too_large: TOO_COMPLEX,
  compression_ratio_too_high: TOO_COMPLEX,
  model_too_complex: TOO_COMPLEX,

  // The shape.
  no_triangles: 'This file contains no printable shape. Please check that you exported the right object.',
  mesh_not_closed:
    'This model has holes in its surface, so we cannot tell how much material it needs. Please close or repair it in your 3D program and upload it again.',
  does_not_fit:
    'This model is too big for our printer, however it is turned. Please scale it down or split it into parts.',
  exceeds_build_volume:
    'This model is too big for our printer, however it is turned. Please scale it down or split it into parts.',
  // A kept quote's link (kept-quote.ts adds the date of an expired one).
  quote_link_invalid: 'This quote link is damaged or was not made by this shop. Please ask the shop for a new one.',
  quote_link_expired: "This quote link has expired. Upload your part again for today's price.",
  feature_too_small:
    'This model is thinner than one printed layer, so it cannot be printed at this size. Please check the units of your file or scale it up.',
  part_too_small:
    'This model is too small for the printer to draw its shape. Please check the units of your file or scale it up.',
  multi_material:
    'This model is multi-colour, and the shop prices multi-colour parts itself. Request a quote, and they will send you a link to order it.',
  scale_out_of_range:
    'At that size the model would be too small or too large to print. Please check the units of your file.',

  // Pricing the model.
  first_layer_empty:
    'This model does not touch the print bed, so it cannot be printed as it is. Please check its orientation or try other options.',
  slice_failed:
    'We could not prepare this model for printing with these options. Please try other options, or contact the shop.',
  settings_conflict: 'These options cannot be combined for this model. Please choose other options.',
  bad_output: BUSY,
  quote_failed: 'We could not calculate a price for this model. Please try again, or contact the shop.',
  slice_timeout: 'Calculating the price took too long. Please try again; a simpler model is quicker.',
  quote_timeout: 'Calculating the price took too long. Please try again; a simpler model is quicker.',
  worker_lost: BUSY,
  queue_full: BUSY,
  parse_queue_full: 'Your earlier files are still being read. Please wait a moment and try again.',
  caller_queue_full: 'You have several prices on the way already. Please wait for them before asking for more.',
  slicer_budget_spent:
    'You have asked for many prices in a short time. Please wait a while before trying again, or contact the shop.',
  file_deleted: 'This upload is no longer available. Please choose your file again.',
  slicer_unavailable: BUSY,
  rate_limited: 'Too many requests at once. Please wait a few seconds and try again.',
  internal_error: BUSY,
  unknown_material: 'That material is no longer offered. Please choose another one.',
  validation_failed: 'The shop has changed its options since this page opened. Please reload the page.',

  // Uploads and carts.
  upload_id_expired: 'The upload took too long to start. Please choose your file again.',
  upload_id_used: 'Please choose your file again.',
  upload_id_not_found: 'Please choose your file again.',
  upload_aborted: 'The upload was interrupted. Please choose your file again.',
  insufficient_storage: 'We cannot take uploads right now. Please try again later.',
  not_found: 'This model is no longer available. Please upload it again.',
  quote_expired: 'This price has expired. Change any option, or upload the model again, for a fresh price.',
  quote_not_completed: 'The price is still being calculated. Please wait a moment and try again.',
  quote_stale: 'The size of your model changed after it was priced. Try again to price it at its current size.',
  zero_price: 'This part cannot be ordered online at this price. Please contact the shop.',
  file_in_cart: 'This model is in your cart, so the shop keeps it.',
  bad_response: BUSY,
};

/** The sentence shown for `code`; an unknown code falls back by whether retrying can help. */
export function shopperMessage(code: string, retryable: boolean): string {
  return (
    SHOPPER_MESSAGES[code] ??
    (retryable ? BUSY : 'Something went wrong with this model. Please try again, or contact the shop.')
  );
}
