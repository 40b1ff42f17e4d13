// Builds the merchant dashboard into dashboard/dist, served by the API server at /dashboard/.
// `vite --config dashboard/vite.config.ts` runs a dev server that proxies the API to a local `npm start`.

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { precompress } from '../scripts/vite-precompress.ts';

const root = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.SLICEQUOTE_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root,
  base: '/dashboard/',
  plugins: [precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // chart.js is the bulk of the bundle; it is one chunk loaded with the analytics page only.
    chunkSizeWarningLimit: 300,
  },
  server: {
    // src imports ../shared/settings.ts (one catalogue of settings for the server, widget and dashboard).
    fs: { allow: ['..'] },
    proxy: {
      '/v2': api,
      '/dashboard/api': api,
      '/widget': api,
    },
  },
});
