// Builds the widget as ONE ES module (widget/dist/slice-quote.js): Lit, three.js and the model
// parsers (inlined into the Web Worker as a string) all in the file a merchant's script tag loads.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import { precompress } from '../scripts/vite-precompress.ts';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  publicDir: false,
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
  worker: { format: 'es', rolldownOptions: { output: { minify: true } } },
  plugins: [precompress()],
});
