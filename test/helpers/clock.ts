// The controllable clock every test server runs on (server.clock): the real time plus an offset that a test
// moves forward, so a rate-limit window, a login lock or a retry delay passes at once instead of being slept
// through. Frozen, it stands still until advanced, so a window cannot run out in the middle of a slow test.
// Time never runs backwards.
export interface TestClock {
  now(): Date;
  /** Moves the server's time forward by ms. */
  advance(ms: number): void;
  /** Stops the time where it is; only advance() moves it then. */
  freeze(): void;
  /** Lets a frozen time run on from where it stands. */
  resume(): void;
}

export function testClock(): TestClock {
  let offset = 0;
  let frozenAt: number | null = null;
  return {
    now: () => new Date(frozenAt ?? Date.now() + offset),
    advance(ms) {
      if (!(ms >= 0)) throw new Error(`a test clock only moves forward (asked to move by ${ms} ms)`);
      if (frozenAt === null) offset += ms;
      else frozenAt += ms;
    },
    freeze() {
      frozenAt ??= Date.now() + offset;
    },
    resume() {
      if (frozenAt !== null) offset = frozenAt - Date.now();
      frozenAt = null;
    },
  };
}
