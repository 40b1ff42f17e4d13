// A small typed client for merchants' backends: openapi-fetch over the types generated from the contract
// (shared/api/schema.ts). Every path, parameter, body and answer is checked by TypeScript against the API;
// README.md ("A typed client") shows it in use.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../shared/api/schema.ts';

export type { components, operations, paths } from '../shared/api/schema.ts';
export type SlicequoteClient = Client<paths>;

export interface ClientOptions {
  /** The service's address, e.g. https://quotes.example.com (no trailing /v2). */
  baseUrl: string;
  /** An API token from the dashboard (sent as a Bearer token). */
  token: string;
  /** A fetch implementation (defaults to the global one). */
  fetch?: typeof globalThis.fetch;
}

export function createSlicequoteClient({ baseUrl, token, fetch }: ClientOptions): SlicequoteClient {
  const client = createClient<paths>({ baseUrl: baseUrl.replace(/\/+$/, ''), ...(fetch ? { fetch } : {}) });
  const bearer: Middleware = {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${token}`);
      return request;
    },
  };
  client.use(bearer);
  return client;
}

/** The multipart body of an upload: the model's bytes and file name, and optionally its unit. */
export function modelUpload(
  bytes: Uint8Array<ArrayBuffer> | Blob,
  name: string,
  unit?: 'mm' | 'cm' | 'm' | 'in' | 'ft' | 'um',
) {
  return {
    body: { file: name, ...(unit ? { unit } : {}) },
    bodySerializer() {
      const form = new FormData();
      form.append('file', bytes instanceof Blob ? bytes : new Blob([bytes]), name);
      if (unit) form.append('unit', unit);
      return form;
    },
  };
}
