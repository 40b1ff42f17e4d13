// The time left a slice has, counted down on screen between two reads of its job (time-left.ts says what is shown):
// a timer that runs while there is a time left to count, and stops with the slice.
/** How often the time left shown counts down between two reads of the job. */
const TICK_MS = 500;

export class Countdown {
  private timer = 0;

  /** `tick`: show the time left as of now. */
  constructor(private readonly tick: () => void) {}

  /** Runs while `counting`; stops once it is not. */
  follow(counting: boolean): void {
    if (counting && !this.timer) this.timer = window.setInterval(this.tick, TICK_MS);
    else if (!counting) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = 0;
  }
}
