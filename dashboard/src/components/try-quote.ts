// "Try it": uploads a model (or picks an earlier upload) and quotes it with a profile, then shows the
// price and every resolved setting with its source. It is a real quote: saved to history, counted.
import { html, nothing } from 'lit';
import { modelUpload } from '../../../client/index.ts';
import { ApiError, api, call } from '../lib/api.ts';
import { AppElement } from '../lib/element.ts';
import { bytes, dateTime } from '../lib/format.ts';
import { Loader, toApiError } from '../lib/loader.ts';
import { quoteRequestFor } from '../lib/profiles.ts';
import { href } from '../lib/router.ts';
import type { FileRecord, Profile, Quote } from '../lib/types.ts';
import { priceBreakdownView, quoteHeadline } from './quote-summary.ts';
import { resolvedSettingsView } from './resolved-settings.ts';
import { formError } from './states.ts';

const POLL_MS = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for a quote that outlasted the synchronous wait (202 + job). */
async function untilDone(jobId: string): Promise<Quote> {
  for (;;) {
    await sleep(POLL_MS);
    const job = await call(api.GET('/v2/jobs/{job_id}', { params: { path: { job_id: jobId } } }));
    if (job.status === 'completed' && job.result) return job.result;
    if (job.status === 'failed')
      throw new ApiError(422, job.error?.code ?? 'quote_failed', job.error?.message ?? 'The quote failed.');
  }
}

export class TryQuote extends AppElement {
  static override properties = {
    profile: { attribute: false },
    profiles: { attribute: false },
    fileId: { state: true },
    phase: { state: true },
    error: { state: true },
    quote: { state: true },
  };
  declare profile: Profile;
  declare profiles: Map<string, Profile>;
  declare fileId: string;
  declare phase: 'idle' | 'uploading' | 'quoting';
  declare error: ApiError | null;
  declare quote: Quote | null;
  private uploads = new Loader<FileRecord[]>(
    this,
    async () => (await call(api.GET('/v2/user/uploads', { params: { query: { limit: 20 } } }))).data,
  );

  constructor() {
    super();
    this.profiles = new Map();
    this.fileId = '';
    this.phase = 'idle';
    this.error = null;
    this.quote = null;
  }

  private async upload(e: Event) {
    const input = e.target as HTMLInputElement;
    const file = input.files?.[0];
    if (!file) return;
    this.phase = 'uploading';
    this.error = null;
    try {
      const rec = await call(api.POST('/v2/file', modelUpload(file, file.name)));
      await this.uploads.reload();
      this.fileId = rec.file_id;
    } catch (err) {
      this.error = toApiError(err);
    } finally {
      this.phase = 'idle';
      input.value = '';
    }
  }

  private async run() {
    const fileId = this.fileId || this.uploads.data?.[0]?.file_id;
    if (!fileId) {
      this.error = new ApiError(400, 'no_file', 'Upload a model first (STL, 3MF or OBJ).');
      return;
    }
    this.phase = 'quoting';
    this.error = null;
    this.quote = null;
    try {
      const body = quoteRequestFor(this.profile);
      const answer = await call(api.POST('/v2/file/quote/{file_id}', { params: { path: { file_id: fileId } }, body }));
      this.quote = 'status_url' in answer ? await untilDone(answer.job_id) : answer;
      await this.updateComplete;
      this.querySelector<HTMLElement>('#try-result-h')?.focus();
    } catch (err) {
      this.error = toApiError(err);
    } finally {
      this.phase = 'idle';
    }
  }

  protected override render() {
    const files = this.uploads.data ?? [];
    const body = JSON.stringify(quoteRequestFor(this.profile));
    return html`<section class="panel try-quote" aria-labelledby="try-h">
      <h2 id="try-h">Try it: quote a model with “${this.profile.name}”</h2>
      <p class="muted small">A real slice and a real quote: it is saved to your history and counts toward this month's allowance.</p>
      <div class="try-row">
        <div class="field">
          <label for="try-upload">Upload a model (STL, 3MF or OBJ)</label>
          <input id="try-upload" type="file" accept=".stl,.3mf,.obj" @change=${this.upload} ?disabled=${this.phase !== 'idle'} />
        </div>
        <div class="field">
          <label for="try-file">Model to quote</label>
          <select id="try-file" @change=${(e: Event) => (this.fileId = (e.target as HTMLSelectElement).value)} ?disabled=${!files.length}>
            ${files.length ? files.map((f) => html`<option value=${f.file_id} ?selected=${f.file_id === this.fileId}>${f.name} · ${bytes(f.size_bytes)} · ${dateTime(f.created_at)}</option>`) : html`<option value="">No uploads yet</option>`}
          </select>
        </div>
        <button type="button" class="btn btn-primary" @click=${this.run} ?disabled=${this.phase !== 'idle' || !files.length}>Quote with this profile</button>
      </div>
      <details class="muted small"><summary>Request body sent</summary><pre class="code"><code>POST /v2/file/quote/{file_id}\n${body}</code></pre></details>
      <div role="status" aria-live="polite">${this.phase === 'uploading' ? html`<p class="state-inline"><span class="spinner" aria-hidden="true"></span> Uploading and measuring the model…</p>` : this.phase === 'quoting' ? html`<p class="state-inline"><span class="spinner" aria-hidden="true"></span> Slicing with PrusaSlicer…</p>` : nothing}</div>
      ${formError(this.error)}
      ${this.quote ? this.result(this.quote) : nothing}
    </section>`;
  }

  private result(q: Quote) {
    return html`<div class="try-result">
      <h3 id="try-result-h" tabindex="-1">Result: <a href=${href(['quotes', q.quote_id])}><code>${q.quote_id}</code></a></h3>
      ${quoteHeadline(q)}
      ${priceBreakdownView(q)}
      <h3>Resolved settings and where each came from</h3>
      ${resolvedSettingsView(q, this.profiles)}
    </div>`;
  }
}
customElements.define('sq-try-quote', TryQuote);
