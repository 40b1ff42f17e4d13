// Previous/next pagination for {page, limit, total, has_more} lists.
import { html, nothing, type TemplateResult } from 'lit';

export function pager(
  label: string,
  page: number,
  limit: number,
  total: number,
  hasMore: boolean,
  go: (page: number) => void,
): TemplateResult | typeof nothing {
  if (page === 1 && !hasMore) return nothing;
  const pages = Math.max(page, Math.ceil(total / limit));
  return html`<nav class="pager" aria-label=${label}>
    <button type="button" class="btn btn-small" ?disabled=${page <= 1} @click=${() => go(page - 1)}>Previous</button>
    <span>Page ${page} of ${pages}</span>
    <button type="button" class="btn btn-small" ?disabled=${!hasMore} @click=${() => go(page + 1)}>Next</button>
  </nav>`;
}
