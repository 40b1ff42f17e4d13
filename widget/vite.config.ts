// Builds the widget as two ES modules: widget/dist/slice-quote.js, what a merchant's script tag loads (Lit,
// three.js, the element), and slice-quote-worker.js beside it, the Web Worker's model parsers and estimator,
// which the element fetches once the page is idle and starts from a blob URL (widget/src/parse-client.ts).

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { precompress } from '../scripts/vite-precompress.ts';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  publicDir: false,
  // The worker's URL is resolved from the script's own (import.meta.url), wherever the script is served from.
  base: './',
  logLevel: 'warn',
  build: {
    lib: { entry: here('src/slice-quote.ts'), formats: ['es'], fileName: () => 'slice-quote.js' },
    outDir: here('dist'),
    emptyOutDir: true,
    target: 'es2022',
    // Vite leaves ES libraries unminified for the consumer's bundler; this file goes to browsers as is.
    rolldownOptions: { output: { minify: true } },
    reportCompressedSize: false,
  },
  // A fixed name: the server serves widget/dist/<file>, and a CDN or proxy rule can name both files.
  worker: { format: 'es', rolldownOptions: { output: { minify: true, entryFileNames: 'slice-quote-worker.js' } } },
  plugins: [precompress()],
});
