// A kept quote as a one-page quotation PDF, written with pdfkit: it is maintained, has no native parts, draws text
// with the PDF standard fonts (nothing to ship, nothing to read per PDF) and embeds PNGs, which is all a quote
// needs. What a shopper orders is on it: who sells (shop and contact), the quote number, the part and how it is
// made, the line at the kept quantity as the cart prices it, when it ships, until when the price holds, and the way
// back to the shop. How the shop arrives at the price of one part (its cost lines) is printed only when the
// merchant chooses to show it. Amounts are written with the currency code ("12.40 USD"), which every standard
// font can print, whatever the currency's symbol; names in other scripts are transliterated (pdf-text.ts), the
// originals kept in the PDF's properties.
import PDFDocument from 'pdfkit';
import { PART_LINES } from '../../shared/pricing.ts';
import type { KeptLine } from './line.ts';
import { pdfText } from './pdf-text.ts';

export interface PdfQuote {
  shopName: string;
  /** How shoppers reach the shop (the offer's `contact`); null: no contact line. */
  contact: string | null;
  quoteId: string;
  fileName: string;
  createdAt: Date;
  validUntil: Date | null;
  currency: string;
  digits: number;
  line: KeptLine;
  /** Price lines of one part, in minor units, as the quote's breakdown holds them; null: not shown to shoppers. */
  costs: Record<string, number> | null;
  /** Tax in the price of one part, in minor units. */
  taxMinor: number;
  /** On the printer's plate, in mm. */
  dimensions: { x: number; y: number; z: number } | null;
  choices: { material: string; color: string | null; quality_label: string; infill: number } | null;
  weightG: number | null;
  printTime: string | null;
  leadTime: string | null;
  /** The shop page that reopens this quote; null: none given. */
  link: string | null;
  picture: Buffer | null;
}

const COST_LABELS: Record<string, string> = {
  material: 'Material',
  support: 'Support material',
  machine: 'Machine time',
  energy: 'Energy',
  fixed_fee: 'Fixed fee',
  minimum_price_adjustment: 'Minimum price per part',
  subtotal: 'Subtotal',
  tax: 'Tax',
  total: 'Price of one part',
};

const day = (d: Date) => d.toISOString().slice(0, 10);
const LEFT = 50;
const RIGHT_EDGE = 545;

export function amount(minor: number, digits: number, currency: string): string {
  return `${(minor / 10 ** digits).toFixed(digits)} ${currency}`;
}

export function quotePdf(q: PdfQuote): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    // Properties hold any script: the names as they are.
    info: { Title: `Quotation ${q.quoteId}`, Author: q.shopName, Subject: q.fileName },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  heading(doc, q);
  doc.moveDown().fillColor('#000').font('Helvetica-Bold').fontSize(14).text(pdfText(q.fileName), LEFT);
  const top = doc.y + 8;
  if (q.picture) doc.image(q.picture, LEFT, top, { fit: [180, 180] });
  details(doc, q, q.picture ? 250 : LEFT, top);
  doc.y = Math.max(doc.y, top + (q.picture ? 190 : 0));
  lineRows(doc, q);
  if (q.costs) costRows(doc, q, q.costs);
  closing(doc, q);
  doc.end();
  return done;
}

function heading(doc: PDFKit.PDFDocument, q: PdfQuote) {
  doc.font('Helvetica-Bold').fontSize(20).text(pdfText(q.shopName));
  if (q.contact)
    doc
      .font('Helvetica')
      .fontSize(10)
      .fillColor('#555')
      .text(`Contact: ${pdfText(q.contact)}`);
  doc.moveDown(0.5).fillColor('#000').font('Helvetica-Bold').fontSize(13).text(`Quotation ${q.quoteId}`);
  const validity = q.validUntil ? ` · Price valid until ${day(q.validUntil)}` : '';
  doc
    .font('Helvetica')
    .fontSize(10)
    .fillColor('#555')
    .text(`Date ${day(q.createdAt)}${validity}`);
}

function details(doc: PDFKit.PDFDocument, q: PdfQuote, x: number, y: number) {
  const rows: [string, string][] = [];
  const d = q.dimensions;
  if (d) rows.push(['Dimensions', `${d.x.toFixed(1)} × ${d.y.toFixed(1)} × ${d.z.toFixed(1)} mm`]);
  if (q.choices) {
    rows.push(['Material', q.choices.color ? `${q.choices.material}, ${q.choices.color}` : q.choices.material]);
    rows.push(['Quality', q.choices.quality_label]);
    rows.push(['Infill', `${q.choices.infill} %`]);
  }
  // A part too light for a tenth of a gram is not "0.0 g" (as the widget writes it).
  if (q.weightG !== null)
    rows.push(['Weight', q.weightG > 0 && q.weightG < 0.05 ? 'under 0.1 g each' : `${q.weightG.toFixed(1)} g each`]);
  if (q.printTime) rows.push(['Print time', `${q.printTime} each`]);
  rows.push(['Delivery', q.leadTime ?? 'Ask the shop']);
  if (q.line.lead_time) rows.push(['Ships by', `${q.line.lead_time.ships_by} if ordered today`]);
  doc.fillColor('#000').fontSize(11);
  let at = y;
  for (const [label, value] of rows) {
    doc.font('Helvetica-Bold').text(label, x, at, { width: 90, lineBreak: false });
    // A long value (a delivery option's label) wraps; the next row starts below it.
    doc.font('Helvetica').text(pdfText(value), x + 95, at, { width: RIGHT_EDGE - x - 95 });
    at = Math.max(at + 18, doc.y + 4);
  }
}

/** One label and amount on a line of its own, the amount right-aligned. */
function row(doc: PDFKit.PDFDocument, label: string, value: string, bold = false) {
  const y = doc.y + 4;
  doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(11);
  doc.text(label, LEFT, y, { width: 300, lineBreak: false });
  doc.text(value, 350, y, { width: RIGHT_EDGE - 350, align: 'right' });
}

/** The line as the cart prices it: unit price × quantity, the break, the surcharge, the minimum, the total. */
function lineRows(doc: PDFKit.PDFDocument, q: PdfQuote) {
  const l = q.line;
  const money = (major: number) => amount(Math.round(major * 10 ** q.digits), q.digits, q.currency);
  doc.moveDown().font('Helvetica-Bold').fontSize(13).fillColor('#000').text('Price', LEFT);
  row(doc, 'Unit price', money(l.unit_price));
  row(doc, 'Quantity', String(l.quantity));
  row(doc, `Subtotal (${l.quantity} × ${money(l.unit_price)})`, money(l.subtotal));
  if (l.quantity_discount > 0)
    row(doc, `Quantity break: ${l.discount_percent} % off`, `-${money(l.quantity_discount)}`);
  if (l.lead_time_surcharge > 0)
    row(
      doc,
      `Delivery surcharge${l.lead_time ? ` (${pdfText(l.lead_time.label)})` : ''}`,
      `+${money(l.lead_time_surcharge)}`,
    );
  if (l.minimum_line_adjustment > 0)
    row(doc, 'Raised to the minimum order line', `+${money(l.minimum_line_adjustment)}`);
  row(doc, 'Total', money(l.total_price), true);
  if (q.taxMinor > 0) {
    doc.font('Helvetica').fontSize(9).fillColor('#555');
    doc.text(`The unit price includes ${amount(q.taxMinor, q.digits, q.currency)} tax.`, LEFT, doc.y + 4);
    doc.fillColor('#000');
  }
}

/** How the price of one part is made, when the merchant shows it. */
function costRows(doc: PDFKit.PDFDocument, q: PdfQuote, costs: Record<string, number>) {
  doc.moveDown().font('Helvetica-Bold').fontSize(12).fillColor('#000').text('How the price of one part is made', LEFT);
  const shown = [...PART_LINES.filter((l) => (costs[l] ?? 0) !== 0), 'subtotal', 'tax', 'total'];
  for (const line of shown) {
    if (line === 'tax' && !costs.tax) continue;
    row(doc, COST_LABELS[line] ?? line, amount(costs[line] ?? 0, q.digits, q.currency), line === 'total');
  }
}

function closing(doc: PDFKit.PDFDocument, q: PdfQuote) {
  doc.moveDown().font('Helvetica').fontSize(9).fillColor('#555');
  if (q.validUntil)
    doc.text(
      `This price is valid until ${day(q.validUntil)}. After that the part is priced again at that day's prices.`,
      LEFT,
    );
  if (q.link) {
    doc.moveDown(0.5).text('Order it or see it again:', LEFT);
    doc.fillColor('#1a4fb5').text(q.link, LEFT, doc.y, { link: q.link, underline: true, width: RIGHT_EDGE - LEFT });
  }
}
