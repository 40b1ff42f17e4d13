// The parse worker is started ahead of the shopper's first file, at idle once the shop's options are shown, and runs
// the estimator once on a small part (so its code is compiled before the shopper's model arrives); the first file
// then goes to that worker. In a page of its own: the spare worker is one per page.
import { assert, assertEqual, cleanup, cubeStl, fixture, nextEvent, until } from './helpers.ts';

afterEach(cleanup);

describe('the parse worker', () => {
  it('waits warmed up before the first file, and parses it', async () => {
    const NativeWorker = window.Worker;
    const nativePost = NativeWorker.prototype.postMessage;
    const started: Worker[] = [];
    const parsedBy: Worker[] = [];
    window.Worker = class extends NativeWorker {
      constructor(url: string | URL, options?: WorkerOptions) {
        super(url, options);
        if (options?.name === 'slice-quote-parser') started.push(this);
      }
    };
    NativeWorker.prototype.postMessage = function (this: Worker, ...args: Parameters<Worker['postMessage']>) {
      const [message] = args;
      if (message && typeof message === 'object' && 'bytes' in message) parsedBy.push(this);
      return nativePost.apply(this, args as Parameters<typeof nativePost>);
    } as typeof Worker.prototype.postMessage;
    try {
      const el = await fixture();
      await until(() => performance.getEntriesByName('slice-quote:warm-up').length > 0, 'the warm-up to finish');
      assertEqual(started.length, 1, 'one worker was started before any file');
      const quoted = nextEvent('sq-quote');
      await el.load(cubeStl(12));
      const { detail } = await quoted;
      assert(detail.total_price > 0, 'the part was priced');
      assertEqual(parsedBy.length, 1, 'one file was parsed');
      assert(parsedBy[0] === started[0], 'by the worker warmed up ahead of it');
      await until(() => started.length === 2, 'another worker to be started for the next file');
    } finally {
      window.Worker = NativeWorker;
      NativeWorker.prototype.postMessage = nativePost;
    }
  });
});
