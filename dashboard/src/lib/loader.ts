// A reactive controller that loads remote data for a page and re-renders it: loading, ready and error
// states, with the previous data kept while a refresh runs and stale answers ignored.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ApiError } from './api.ts';

export type LoadState<T> = { status: 'loading' } | { status: 'error'; error: ApiError } | { status: 'ready'; data: T };

export class Loader<T> implements ReactiveController {
  state: LoadState<T> = { status: 'loading' };
  /** True while a reload runs with data already shown. */
  refreshing = false;
  private seq = 0;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly fetcher: () => Promise<T>,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    void this.reload();
  }

  get data(): T | undefined {
    return this.state.status === 'ready' ? this.state.data : undefined;
  }

  async reload(): Promise<void> {
    const mine = ++this.seq;
    if (this.state.status === 'ready') this.refreshing = true;
    else this.state = { status: 'loading' };
    this.host.requestUpdate();
    try {
      const data = await this.fetcher();
      if (mine === this.seq) this.state = { status: 'ready', data };
    } catch (err) {
      if (mine === this.seq) this.state = { status: 'error', error: toApiError(err) };
    } finally {
      if (mine === this.seq) {
        this.refreshing = false;
        this.host.requestUpdate();
      }
    }
  }
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError(0, 'client_error', err instanceof Error ? err.message : String(err));
}
