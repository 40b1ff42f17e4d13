// Reads the server's imports and checks that its folders form one pipeline whose arrows run one way: from the
// routes down to the infrastructure. It reports the folder graph and fails (exit 1) on an import into another
// folder's inner file instead of its front door (`index.ts`), on a circle of folders or of files (type imports
// too: a circle of types is a knot to untie, with the shared types in a file of their own), and on an arrow that
// runs back up against the order declared below. `--report` prints the same findings and always exits 0.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { parseSync } from 'oxc-parser';

const SERVER = join(import.meta.dirname, '..', 'server');

// The declared order, top → bottom. A file may import its own folder, a folder on its own floor when no circle
// results, and any floor below; never a floor above. The floors follow one upload to its webhook:
// - the process (main/start/cluster/demo), then the app, each route's front (route-front.ts) and the contract's
//   assembly (contract.ts);
// - quote requests, which price a part by hand into a quote and a kept link the widget's cart orders;
// - the routes a request reaches first: the widget's, the system and operations pages, the retention sweep,
//   kept quotes (links and PDFs) and the first-run checklist;
// - quotes, which read files; files, which are charged to limits;
// - usage (GET /v2/usage, analytics, the export) and the offer: they read what limits count and price against;
//   usage sits above limits because it shows the widget budgets limits keep, while limits own the counters;
// - limits: rate limits, quotas, counters, alert state and the request log's writes;
// - profiles (settings and their resolution), the printer library (PrusaSlicer's vendor bundles), webhooks (the
//   outbox's delivery) and idempotency (a retried request answers what the first did, per caller), which the
//   features above use;
// - accounts: who is calling, their plans, tokens, widget keys, CORS;
// - the model's placement, then the mesh and the slicer it is cut by;
// - infrastructure every feature uses: the OpenAPI helpers, HTTP, storage, e-mail, db, configuration, ids and
//   the dependency ports (`deps.ts` declares interfaces and imports no feature).
// Root files (server/*.ts) are placed by name; folders by their name.
const FLOORS: string[][] = [
  ['main.ts', 'start.ts', 'cluster.ts', 'demo.ts', 'settle-memory.ts'],
  ['app.ts', 'route-front.ts', 'contract.ts'],
  ['quote-requests'],
  ['widget', 'system', 'metrics', 'retention', 'kept-quotes', 'setup'],
  ['quotes'],
  ['files'],
  ['usage', 'offer'],
  ['limits'],
  ['profiles', 'printer-library', 'webhooks', 'idempotency'],
  ['accounts'],
  ['placement'],
  ['mesh', 'slicer', 'prusa-config'],
  ['outbox', 'openapi', 'http', 'storage', 'mail', 'db', 'deps.ts', 'config.ts', 'ids.ts'],
];
const FRONT_DOOR = 'index.ts';
// The quote pipeline's two halves: the worker half (claiming, slicing, finishing, stopping) never imports the
// request half (creating quotes, their routes). A worker finishes a quote through finish.ts, as a request does
// for a cached slice.
const WORKER_HALF = [
  'job-runner',
  'quote-worker',
  'prefetch-worker',
  'slice-step',
  'file-work',
  'finish',
  'aside-slice',
];
const REQUEST_HALF = ['service', 'admit', 'router', 'prefetch', 'material-prices'];
const inQuotes = (names: string[]) => new Set(names.map((n) => `quotes/${n}.ts`));

const report = process.argv.includes('--report');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** server-relative path, POSIX separators: `quotes/service.ts`. */
const rel = (path: string) => relative(SERVER, path).split('\\').join('/');
/** The folder a file belongs to; a root file is its own "folder". */
const groupOf = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file);
const floorOf = new Map(FLOORS.flatMap((names, floor) => names.map((name) => [name, floor] as const)));

interface Edge {
  from: string;
  to: string;
}

function importsOf(file: string, source: string): string[] {
  const { module } = parseSync(file, source);
  const requests = [
    ...module.staticImports.map((i) => i.moduleRequest.value),
    ...module.staticExports.flatMap((e) => e.entries.flatMap((x) => (x.moduleRequest ? [x.moduleRequest.value] : []))),
    ...module.dynamicImports.flatMap((d) => {
      const text = source.slice(d.moduleRequest.start, d.moduleRequest.end);
      return /^['"][^'"]+['"]$/.test(text) ? [text.slice(1, -1)] : [];
    }),
  ];
  return [...new Set(requests.filter((r) => r.startsWith('.')))];
}

interface AstNode {
  type: string;
  start: number;
  end: number;
  id?: { type?: string; name?: string } | null;
  key?: { name?: string };
}

/** The longest function of a file: walks the ESTree for function nodes and measures them in lines. */
function functionsOf(file: string, source: string): { name: string; lines: number }[] {
  const { program } = parseSync(file, source);
  const lineAt = (offset: number) => source.slice(0, offset).split('\n').length;
  const found: { name: string; lines: number }[] = [];
  const visit = (node: unknown, name: string) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) visit(n, name);
      return;
    }
    const n = node as AstNode;
    let here = name;
    if (n.type === 'VariableDeclarator' && n.id?.type === 'Identifier') here = n.id.name ?? name;
    if (n.type === 'Property' || n.type === 'MethodDefinition') here = n.key?.name ?? name;
    if (/^(FunctionDeclaration|FunctionExpression|ArrowFunctionExpression)$/.test(n.type)) {
      const fname = n.id?.name ?? here;
      found.push({ name: `${rel(file)}:${lineAt(n.start)} ${fname}`, lines: lineAt(n.end) - lineAt(n.start) + 1 });
      here = fname;
    }
    for (const [key, value] of Object.entries(n)) if (key !== 'parent') visit(value, here);
  };
  visit(program, '(module)');
  return found;
}

/** Strongly connected components with more than one member (Tarjan). */
function circles(nodes: string[], edges: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of nodes) if (!idx.has(v)) connect(v);
  return out;
}

const adjacency = (edges: Edge[]) => {
  const map = new Map<string, Set<string>>();
  for (const { from, to } of edges) map.set(from, (map.get(from) ?? new Set()).add(to));
  return map;
};

const files = sourceFiles(SERVER);
const fileEdges: Edge[] = [];
const functions: { name: string; lines: number }[] = [];
for (const path of files) {
  const source = readFileSync(path, 'utf8');
  functions.push(...functionsOf(path, source));
  for (const request of importsOf(path, source)) {
    const target = rel(posix.join(dirname(path), request));
    if (!target.startsWith('..')) fileEdges.push({ from: rel(path), to: target });
  }
}

const crossing = fileEdges.filter((e) => groupOf(e.from) !== groupOf(e.to));
const folderPairs = [...new Set(crossing.map((e) => `${groupOf(e.from)} → ${groupOf(e.to)}`))].sort();
const groups = [...new Set(files.map((f) => groupOf(rel(f))))].sort();
const unplaced = groups.filter((g) => !floorOf.has(g));
const backUp = crossing.filter((e) => (floorOf.get(groupOf(e.from)) ?? 0) > (floorOf.get(groupOf(e.to)) ?? 0));
const backUpPairs = [...new Set(backUp.map((e) => `${groupOf(e.from)} → ${groupOf(e.to)}`))].sort();
const innerImports = crossing.filter((e) => e.to.includes('/') && !e.to.endsWith(`/${FRONT_DOOR}`));
const reachedFromOutside = [...new Set(crossing.filter((e) => e.to.includes('/')).map((e) => e.to))].sort();
const innerReached = reachedFromOutside.filter((f) => !f.endsWith(`/${FRONT_DOOR}`));
const folderEdges = crossing.map((e) => ({ from: groupOf(e.from), to: groupOf(e.to) }));
const folderCircles = circles(groups, adjacency(folderEdges));
const fileCircles = circles(files.map(rel), adjacency(fileEdges));
const workers = inQuotes(WORKER_HALF);
const requests = inQuotes(REQUEST_HALF);
const workerToRequest = fileEdges.filter((e) => workers.has(e.from) && requests.has(e.to));
const largest = functions.sort((a, b) => b.lines - a.lines).slice(0, 5);

const list = (title: string, items: string[], limit = 40) => {
  console.log(`\n${title}: ${items.length}`);
  for (const item of items.slice(0, limit)) console.log(`  ${item}`);
  if (items.length > limit) console.log(`  … ${items.length - limit} more`);
};
console.log(`server/: ${files.length} files in ${groups.length} folders (root files count as their own)`);
console.log(`arrows between folders: ${crossing.length} imports, ${folderPairs.length} folder pairs`);
list('arrows back up (folder pairs)', backUpPairs);
console.log(`arrows back up (imports): ${backUp.length}`);
list(
  'folder circles',
  folderCircles.map((c) => c.join(' ⇄ ')),
);
list(
  'file circles',
  fileCircles.map((c) => `${c.length} files: ${c.join(', ')}`),
);
list(`files reached from outside their folder that are not ${FRONT_DOOR}`, innerReached);
list(
  `imports into another folder's inner file`,
  innerImports.map((e) => `${e.from} → ${e.to}`),
  20,
);
list(
  'largest functions (lines)',
  largest.map((f) => `${f.lines}  ${f.name}`),
);
list('folders without a floor', unplaced);
list(
  'worker half → request half (quotes/)',
  workerToRequest.map((e) => `${e.from} → ${e.to}`),
);

const failures =
  backUp.length +
  folderCircles.length +
  fileCircles.length +
  innerImports.length +
  unplaced.length +
  workerToRequest.length;
if (failures > 0 && !report) {
  console.error(
    `\ncheck-graph: ${backUp.length} arrows back up, ${folderCircles.length} folder circles, ` +
      `${fileCircles.length} file circles, ${innerImports.length} imports past a front door, ` +
      `${unplaced.length} folders without a floor, ${workerToRequest.length} worker → request imports`,
  );
  process.exit(1);
}
