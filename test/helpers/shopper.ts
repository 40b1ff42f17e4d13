// A shop's shopper as the widget calls the API: the widget key and the shop page's origin on every request, the
// shopper token the first upload id hands out on the ones after it, and optionally a client address of its own
// (127.0.0.x on loopback) for limits and shares counted per address.
import assert from 'node:assert/strict';
import type { TestServer } from './server.ts';

export function widgetShopper(server: TestServer, key: string, origin: string, localAddress?: string) {
  const c = server.client();
  if (localAddress) c.localAddress = localAddress;
  let token = '';
  const headers = () => ({ 'x-widget-key': key, origin, ...(token ? { 'x-shopper-token': token } : {}) });
  return {
    headers,
    get: (p: string) => c.request('GET', p, { headers: headers() }),
    post: (p: string, json: unknown) => c.request('POST', p, { json, headers: headers() }),
    /** Any call as this shopper, with more headers (e.g. Prefer). */
    request: (method: string, p: string, extra: Record<string, string> = {}) =>
      c.request(method, p, { headers: { ...headers(), ...extra } }),
    /** Starts a session without uploading: an upload id issues the token (the widget does so before ordering a kept link). */
    async session(): Promise<void> {
      const ticket = await c.request('GET', '/v2/file/upload-id', { headers: headers() });
      assert.equal(ticket.status, 200, JSON.stringify(ticket.body));
      token = ticket.body.shopper_token;
    },
    /** Fetches an upload id, uploads through it and answers the stored file's id. */
    async upload(bytes: Uint8Array, name: string): Promise<string> {
      const ticket = await c.request('GET', '/v2/file/upload-id', { headers: headers() });
      token = ticket.body.shopper_token;
      const up = await c.uploadBytes(`/v2/file/public/${ticket.body.upload_id}`, bytes, name);
      assert.equal(up.status, 201, JSON.stringify(up.body));
      return up.body.file_id;
    },
  };
}
