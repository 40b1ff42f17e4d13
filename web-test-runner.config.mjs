// Component tests of <slice-quote> in Debian's Chromium, against a real slicequote server that this
// config starts (widget key allowed for the test page's origin). The tests load the built bundle from
// the server's /widget/slice-quote.js, exactly as a shop page does; GET /__sq-env tells them where.

import { readFile } from 'node:fs/promises';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import { tsImport } from 'tsx/esm/api';

const { chromiumMissing, startWidgetEnv, CHROMIUM, CHROMIUM_ARGS, FEATURES_NOT_USED } = await tsImport(
  './test/e2e/widget-env.ts',
  import.meta.url,
);
const { corpusPath } = await tsImport('./test/helpers/corpus.ts', import.meta.url);

const missing = chromiumMissing();
if (missing) {
  console.log(`widget component tests ${missing}`);
  process.exit(0);
}

const HOST = '127.0.0.1';
let env = null;

/**
 * Starts the API for the dev server's own origin and answers /__sq-env with its URL and key, and
 * /__corpus/<path> with the model corpus (which lives outside the served folder).
 */
function slicequoteServer() {
  return {
    name: 'slicequote-server',
    async serverStart({ config }) {
      // Every test file's shoppers call from this one address, so they share its rate limits: counted against
      // the business plan here, as if they were the many shoppers of a busy shop, not the free plan's 20 quotes a
      // minute. Rate limiting itself is tested in test/api/limits.test.ts.
      env = await startWidgetEnv({
        extraOrigins: [`http://${HOST}:${config.port}`],
        env: { RATE_LIMIT_ANON_PLAN: 'business' },
      });
    },
    async serverStop() {
      await env?.stop();
    },
    async serve(context) {
      if (context.path === '/__sq-expire') {
        const expired = await env.server.deps.db.query('UPDATE quotes SET expires_at = $1 WHERE id = $2 RETURNING id', [
          new Date(Date.now() - 60_000),
          context.query.quote_id,
        ]);
        return { body: JSON.stringify({ expired: expired.length }), type: 'json' };
      }
      if (context.path === '/__sq-offer') return { body: await changeOffer(context.query), type: 'json' };
      if (context.path === '/__sq-env')
        return { body: JSON.stringify({ api: env.server.url, key: env.widgetKey }), type: 'json' };
      const rel = /^\/__corpus\/([\w./-]+)$/.exec(context.path)?.[1];
      if (rel && !rel.split('/').includes('..'))
        return { body: await readFile(corpusPath(rel)), type: 'application/octet-stream' };
    },
  };
}

async function changeOffer(query) {
  const call = async (method, body) => {
    const res = await fetch(`${env.server.url}/v2/offer`, {
      method,
      headers: { authorization: `Bearer ${env.apiToken}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} /v2/offer: ${res.status} ${await res.text()}`);
    return res.json();
  };
  if ('reset' in query) return JSON.stringify(await call('DELETE'));
  const { source: _source, ...offer } = await call('GET');
  const max = query.quantity_max ? Number(query.quantity_max) : offer.quantity.max;
  const hourly = query.quotes_per_shopper_hour ? Number(query.quotes_per_shopper_hour) : undefined;
  const widget_budget = { ...offer.widget_budget, ...(hourly ? { quotes_per_shopper_hour: hourly } : {}) };
  const amount = query.request_quote_above_amount ? Number(query.request_quote_above_amount) : undefined;
  const request_quote_above = amount ? { hours: null, amount } : offer.request_quote_above;
  return JSON.stringify(
    await call('PUT', { ...offer, quantity: { min: offer.quantity.min, max }, widget_budget, request_quote_above }),
  );
}

export default {
  files: ['test/widget/**/*.test.ts'],
  hostname: HOST,
  nodeResolve: true,
  concurrency: 1,
  // Waits are on conditions; these two clocks only end what hangs (scripts/test.sh: the runner's 30 minutes), so a
  // loaded host makes a file slower, never red.
  testsFinishTimeout: 1_800_000,
  testFramework: { config: { timeout: 1_800_000 } },
  // Puppeteer, which launches it here, merges a --disable-features of ours into its own.
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath: CHROMIUM,
        headless: true,
        args: [...CHROMIUM_ARGS, `--disable-features=${FEATURES_NOT_USED.join(',')}`],
      },
    }),
  ],
  plugins: [esbuildPlugin({ ts: true, target: 'es2022' }), slicequoteServer()],
};
