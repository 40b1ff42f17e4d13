// Compiles test files, and every TypeScript file they import, to plain JavaScript for scripts/test.sh:
// `node scripts/compile-tests.ts OUT test/a.test.ts …` prints nothing and writes OUT/test/a.test.js and the rest
// (scripts/test.sh gives each run a folder of its own under .cache, so two runs in one checkout never share one).
//
// Why: Node 20 runs TypeScript only through a loader's hooks (tsx), and loading the server's modules through them
// costs a test process 1.3-1.7 CPU s, twice what the same modules cost as JavaScript; a run starts about 170 test
// processes and many worker threads (CONTRIBUTING.md, "Tests").
//
// What stays as it was: each file is compiled alone (esbuild, the compiler tsx uses) to the same place under OUT,
// and its imports of TypeScript files point at their compiled copies, so the modules and the order they load in are
// the same. Packages and files that are not TypeScript are imported from where they are. `import.meta.url` and
// `import.meta.dirname` read the source file's own, so what a file finds beside itself (fixtures, plans.json) is
// found as before; only a worker thread's entry is taken from beside the compiled file, compiled too, so the worker
// runs compiled code as well. A spawned server runs as `npm start` does, through tsx.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * Compiles `entries` (paths of TypeScript files) and what they import into `outdir`, each at its path from the
 * repository's root; answers how many files it compiled.
 */
export async function compileTests(outdir: string, entries: string[]): Promise<number> {
  // Packages are imported from node_modules, which Node looks for from the compiled file's folder upwards.
  if (path.relative(ROOT, outdir).startsWith('..')) throw new Error(`compile-tests: ${outdir} is not inside ${ROOT}`);
  const compiled = new Set<string>();
  let next = entries.map((file) => path.resolve(ROOT, file));
  while (next.length > 0) {
    for (const file of next) compiled.add(file);
    const imported = new Set<string>();
    await build({
      entryPoints: next,
      outdir,
      outbase: ROOT,
      bundle: true, // for the plugin to see each import; it leaves every one of them out of the file
      packages: 'external',
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'linked',
      logLevel: 'warning',
      plugins: [eachFileAlone(imported)],
    });
    next = [...imported].filter((file) => !compiled.has(file));
  }
  return compiled.size;
}

/**
 * `import.meta.url` and `import.meta.dirname` in a TypeScript file, or a worker thread's entry found beside it
 * (`new URL('./x-entry.mjs', import.meta.url)`, captured): the entry is compiled too, and the compiled file starts
 * the compiled entry.
 */
const IMPORT_META = /new URL\('(\.\.?\/[\w./-]+\.mjs)', import\.meta\.url\)|import\.meta\.(?:url|dirname)\b/g;

/** Keeps each import out of the importing file; adds the TypeScript files imported to `imported`. */
function eachFileAlone(imported: Set<string>): Plugin {
  return {
    name: 'each-file-alone',
    setup(compiler) {
      compiler.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const file = path.resolve(args.resolveDir, args.path);
        if (!file.endsWith('.ts')) return { path: pathToFileURL(file).href, external: true };
        imported.add(file);
        return { path: args.path.replace(/\.ts$/, '.js'), external: true };
      });
      compiler.onLoad({ filter: /\.ts$/ }, async (args) => ({
        contents: (await readFile(args.path, 'utf8')).replace(IMPORT_META, (found, entry?: string) => {
          if (entry === undefined)
            return JSON.stringify(found.endsWith('url') ? pathToFileURL(args.path).href : path.dirname(args.path));
          imported.add(path.resolve(path.dirname(args.path), entry));
          return `new URL(${JSON.stringify(entry.replace(/\.mjs$/, '.js'))}, import.meta.url)`;
        }),
        loader: 'ts',
      }));
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [outdir = '', ...entries] = process.argv.slice(2);
  await compileTests(path.resolve(outdir), entries);
}
