// A browser call that goes on long says on stderr what it is still waiting for, as until() does for the tests' own
// polls (test/helpers/poll.ts). The browsers run with no timeouts (untimed in widget-env.ts): a step waiting for
// something that never happens ends only at the runner's hang guard, 30 minutes later, which names the file and
// not the step. These lines name the step. They report; they never end a wait.
import type { Page } from 'playwright-core';

/** The first report after a minute, then each time the wait has doubled. */
const FIRST_REPORT_MS = 60_000;

/** The calls that wait on the page (for an element, an action's target, a function, a navigation). */
const PAGE_CALLS = ['waitForFunction', 'waitForSelector', 'waitForURL', 'waitForLoadState', 'goto', 'screenshot'];
const LOCATOR_CALLS = [
  'waitFor',
  'click',
  'fill',
  'check',
  'selectOption',
  'setInputFiles',
  'innerText',
  'textContent',
  'inputValue',
  'getAttribute',
  'boundingBox',
  'screenshot',
  'evaluate',
];

const watched = new WeakSet<object>();

/** Makes every page like `page`, and every locator, report its long calls (once per prototype). */
export function reportLongWaits(page: Page): void {
  watch(Object.getPrototypeOf(page), PAGE_CALLS, (self, args) => `page.${describeArgs(args)} on ${urlOf(self)}`);
  watch(
    Object.getPrototypeOf(page.locator('html')),
    LOCATOR_CALLS,
    (self, args) => `${String(self)}.${describeArgs(args)}`,
  );
}

type Describe = (self: unknown, args: { name: string; first: unknown }) => string;

function watch(prototype: Record<string, unknown>, names: string[], describe: Describe): void {
  if (watched.has(prototype)) return;
  watched.add(prototype);
  for (const name of names) {
    const original = prototype[name];
    if (typeof original !== 'function') continue;
    prototype[name] = function (this: unknown, ...args: unknown[]) {
      const result = original.apply(this, args);
      if (!(result instanceof Promise)) return result;
      const started = Date.now();
      let timer: NodeJS.Timeout;
      const report = (after: number) => {
        timer = setTimeout(() => {
          const what = describe(this, { name, first: args[0] });
          process.stderr.write(`still waiting for ${what} after ${Math.round((Date.now() - started) / 1000)} s\n`);
          report(after * 2);
        }, after).unref();
      };
      report(FIRST_REPORT_MS);
      return result.finally(() => clearTimeout(timer));
    };
  }
}

function describeArgs({ name, first }: { name: string; first: unknown }): string {
  if (first === undefined || typeof first === 'object') return `${name}()`;
  return `${name}(${String(first).replace(/\s+/g, ' ').slice(0, 160)})`;
}

function urlOf(page: unknown): string {
  try {
    return (page as Page).url();
  } catch {
    return 'a closed page';
  }
}
