// The designed loading, empty and error states every page uses, so nothing is ever left blank.
import { html, nothing, type TemplateResult } from 'lit';
import type { ApiError } from '../lib/api.ts';
import type { LoadState } from '../lib/loader.ts';

export function loadingView(what: string): TemplateResult {
  return html`<div class="state state-loading" role="status" aria-live="polite">
    <span class="spinner" aria-hidden="true"></span><span>Loading ${what}…</span>
  </div>`;
}

/** Explains what went wrong in the server's own words; a retry when the problem may be passing. */
export function errorView(error: ApiError, retry?: () => void): TemplateResult {
  const title =
    error.status === 0
      ? 'The server could not be reached'
      : error.status === 404
        ? 'Not found'
        : 'Something went wrong';
  return html`<div class="state state-error" role="alert">
    <h2 class="state-title">${title}</h2>
    <p>${error.message}</p>
    <p class="muted small">Error code: <code>${error.code}</code>${error.status ? html` (HTTP ${error.status})` : nothing}</p>
    ${retry ? html`<button type="button" class="btn" @click=${retry}>Try again</button>` : nothing}
  </div>`;
}

export function emptyView(title: string, body: string | TemplateResult, action?: TemplateResult): TemplateResult {
  return html`<div class="state state-empty">
    <h3 class="state-title">${title}</h3>
    <p>${body}</p>
    ${action ?? nothing}
  </div>`;
}

/** Renders a Loader's state: the loading and error views, or `ready` with the data. */
export function renderLoad<T>(
  state: LoadState<T>,
  what: string,
  ready: (data: T) => unknown,
  retry?: () => void,
): unknown {
  if (state.status === 'loading') return loadingView(what);
  if (state.status === 'error') return errorView(state.error, retry);
  return ready(state.data);
}

/** A form-level error: the message plus each field the server named. */
export function formError(error: ApiError | null): unknown {
  if (!error) return nothing;
  return html`<div class="alert alert-error" role="alert">
    <p>${error.message}</p>
    ${
      error.fields.length > 1
        ? html`<ul>${error.fields.map((f) => html`<li><code>${f.field}</code>: ${f.message}</li>`)}</ul>`
        : nothing
    }
  </div>`;
}
