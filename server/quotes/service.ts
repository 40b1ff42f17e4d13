// Creating quotes and finishing them. A quote whose slice is cached is answered inline; any other quote
// becomes a job row that a worker claims (see jobs/runner.ts), for sync and async requests alike.
import { validateConfigSection, type ResolvedSettings, type SettingSection } from '../../shared/settings.ts';
import { computePrice, formatDuration } from '../../shared/pricing.ts';
import type { Deps, Auth } from '../deps.ts';
import type { Queryable } from '../db/index.ts';
import { fileById } from '../db/queries/files.ts';
import { fileUploadedByWidgetKey } from '../db/queries/widget-keys.ts';
import { writeEvent } from '../db/queries/outbox.ts';
import {
  insertQuote, completeQuote, failQuote, sliceByKey, countWaitingJobs, type QuoteRow, type SliceRow,
} from '../db/queries/quotes.ts';
import { ApiError, ValidationError, notFound, type FieldProblem } from '../errors.ts';
import { newId } from '../ids.ts';
import { checkQuoteQuota, countQuote } from '../limits/quota.ts';
import { detectSlicer } from '../slicer/engine.ts';
import { mapInfillPattern } from '../slicer/patterns.ts';
import type { SliceStats } from '../slicer/gcode-stats.ts';
import { resolveSettings, type QuoteRequest, type Resolution } from './resolve.ts';
import { slicingKey } from './slicing-key.ts';
import { jobEventData, quoteEventData, processingTimeMs } from './present.ts';

const SECTIONS: SettingSection[] = ['printer_config', 'material_config', 'quote_config'];

export function validateQuoteRequest(body: unknown): QuoteRequest {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new ValidationError([{ field: 'body', message: 'must be a JSON object' }]);
  const problems: FieldProblem[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (key === 'color') {
      if (typeof value !== 'string' || !value.trim() || value.length > 40) problems.push({ field: 'color', message: 'must be a colour name of 1 to 40 characters' });
    } else if (SECTIONS.includes(key as SettingSection)) {
      problems.push(...validateConfigSection(key as SettingSection, value));
    } else {
      problems.push({ field: key, message: 'is not a known field (expected printer_config, material_config, quote_config, color)' });
    }
  }
  if (problems.length) throw new ValidationError(problems);
  return body as QuoteRequest;
}

/** What a quote row keeps of its resolution, so a worker can slice and price it later. */
interface StoredResolution {
  settings: ResolvedSettings;
  sources: Record<string, string>;
  material_profile_id: string;
}

async function slicerVersion(deps: Deps): Promise<string> {
  try {
    return (await detectSlicer(deps.config.slicerBinary)).version;
  } catch {
    throw new ApiError(503, 'slicer_unavailable', 'The slicer is not available on this server; quotes cannot be computed right now.', undefined, { 'Retry-After': '60' });
  }
}

export async function createQuote(deps: Deps, auth: Auth, fileId: string, body: unknown, mode: 'sync' | 'async'): Promise<QuoteRow> {
  const request = validateQuoteRequest(body);
  const file = await fileById(deps.db, auth.account.id, fileId);
  // A widget key quotes only the files uploaded through its own upload ids.
  if (!file || (auth.widgetKeyId && !(await fileUploadedByWidgetKey(deps.db, file.id, auth.widgetKeyId)))) throw notFound('file', fileId);
  await checkQuoteQuota(deps, auth.account);
  const resolution = await resolveSettings(deps.db, auth.account.id, request);
  const key = slicingKey(file.mesh_sha256, resolution.settings, await slicerVersion(deps));
  const cached = mode === 'sync' ? await sliceByKey(deps.db, key) : undefined;
  if (!cached && (await countWaitingJobs(deps.db)) >= deps.config.slicerQueueSize) {
    throw new ApiError(503, 'queue_full', 'Too many quotes are waiting to be sliced; retry shortly.', undefined, { 'Retry-After': '30' });
  }
  const stored: StoredResolution = { settings: resolution.settings, sources: resolution.sources, material_profile_id: resolution.material.id };
  const row = await deps.db.transaction(async (tx) => {
    const quote = await insertQuote(tx, {
      id: newId(mode === 'async' ? 'job' : 'qt'),
      account_id: auth.account.id,
      token_id: auth.tokenId,
      file_id: file.id,
      file_name: file.name,
      mode,
      status: cached ? 'processing' : 'queued',
      request,
      resolved: { ...stored, color: resolution.color },
      slicing_key: key,
      material: resolution.settings.material.filament_type,
      color: resolution.color,
      printer: printerLabel(resolution),
      widget_key_id: auth.widgetKeyId,
    });
    if (cached) return finishQuote(tx, deps, quote, null, { stats: cached.stats as SliceStats, slice: cached, cached: true });
    await writeEvent(tx, { account_id: quote.account_id, token_id: quote.token_id, event: 'job.status_changed', data: jobEventData(quote, null) });
    return quote;
  });
  deps.events.wake();
  if (!cached) deps.jobs.wake();
  return row;
}

function printerLabel(r: Resolution): string {
  const p = r.settings.printer;
  return `${p.bed_size_x}x${p.bed_size_y}x${p.bed_size_z} mm, ${p.nozzle_diameter} mm nozzle`;
}

export interface FinishInput {
  stats: SliceStats;
  slice: Pick<SliceRow, 'slicer' | 'slicer_version' | 'duration_ms'>;
  cached: boolean;
}

/** The stored result: spec 2.4 fields, then the breakdown, statistics and resolved settings with sources. */
export function buildResult(row: QuoteRow, input: FinishInput) {
  const resolved = row.resolved as StoredResolution & { color: string };
  const s = resolved.settings;
  const price = computePrice(input.stats, s);
  const pattern = mapInfillPattern(s.printer.infill_pattern);
  return {
    total_price: price.total,
    currency: price.currency,
    estimated_time: formatDuration(input.stats.print_time_s),
    estimated_time_seconds: Math.round(input.stats.print_time_s),
    filament_weight: Math.round(input.stats.filament_weight_g * 100) / 100,
    printInfo: { technology: 'FDM', material: s.material.filament_type, color: resolved.color },
    cached: input.cached,
    processing_time_ms: processingTimeMs(row),
    price_breakdown: price,
    print_stats: input.stats,
    infill_pattern: { requested: pattern.requested, used: pattern.used, exact: pattern.exact },
    settings: { printer_config: s.printer, material_config: s.material, quote_config: s.quote },
    setting_sources: resolved.sources,
    slicer: { name: input.slice.slicer, version: input.slice.slicer_version, slice_time_ms: input.slice.duration_ms },
  };
}

/** Completes a quote in the caller's transaction: row, monthly count and quote.completed together. */
export async function finishQuote(tx: Queryable, deps: Deps, row: QuoteRow, owner: string | null, input: FinishInput): Promise<QuoteRow> {
  const result = buildResult(row, input);
  const done = await completeQuote(tx, row.id, owner, {
    currency: result.currency,
    total_price: result.total_price,
    filament_weight_g: input.stats.filament_weight_g,
    print_time_s: input.stats.print_time_s,
    cached: input.cached,
    result,
  });
  if (!done) throw new LeaseLostError(row.id);
  await countQuote(tx, deps, row.account_id, row.token_id);
  await writeEvent(tx, { account_id: done.account_id, token_id: done.token_id, event: 'quote.completed', data: quoteEventData(done) });
  return done;
}

export async function failJob(tx: Queryable, row: QuoteRow, owner: string | null, error: { code: string; message: string; status: number }) {
  const failed = await failQuote(tx, row.id, owner, error);
  if (!failed) throw new LeaseLostError(row.id);
  await writeEvent(tx, { account_id: failed.account_id, token_id: failed.token_id, event: 'quote.failed', data: quoteEventData(failed) });
  await writeEvent(tx, { account_id: failed.account_id, token_id: failed.token_id, event: 'job.status_changed', data: jobEventData(failed, row.status) });
  return failed;
}

/** Another worker took the job over (this one's lease ran out): its result is discarded. */
export class LeaseLostError extends Error {
  constructor(id: string) {
    super(`lost the lease on ${id}`);
  }
}
