import type { ExitGuard } from '../deps.js';

/**
 * What an exit must not cut, for one run: writing the config file, a request that changes
 * something while it is on the wire (its answer says what the service did), the span from the
 * moment the service has made a key until that key is stored or handed over on stdout, and an
 * interrupted export's account of what its file holds. Killing
 * the process inside one loses what the user cannot get back, so after Ctrl-C the forced exit
 * (src/main.ts) waits for open sections to close. Each section is short and bounded by its own
 * timeouts. Also the terminal restorations (cursor, live line) to run however the run ends.
 */
export class Guard implements ExitGuard {
  #open = 0;
  readonly #waiters: Array<() => void> = [];
  /** When each request that changes something, now on the wire, is due to be answered at the latest. */
  readonly #inFlight = new Set<{ dueAt: number }>();
  #lastSettledAt = 0;
  readonly #cleanups: Array<() => void> = [];
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  async critical<T>(work: () => Promise<T>): Promise<T> {
    this.#open++;
    try {
      return await work();
    } finally {
      this.#close();
    }
  }

  criticalOpen(): boolean {
    return this.#open > 0;
  }

  /** Resolves once no section is open (at once if none is). */
  noCriticalOpen(): Promise<void> {
    if (this.#open === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * A POST or DELETE is on the wire until `dueAt` at the latest (its --timeout): a critical section
   * that the HTTP layer opens, closed by the returned function once the request has settled.
   */
  mutationInFlight(dueAt: number): () => void {
    const entry = { dueAt };
    this.#inFlight.add(entry);
    this.#open++;
    return () => {
      if (!this.#inFlight.delete(entry)) return;
      this.#lastSettledAt = this.#now();
      this.#close();
    };
  }

  /**
   * How much longer the hard limit of a forced exit must hold off, in ms: while a request that
   * changes something is on the wire, until its deadline plus `marginMs`; after the last one
   * settled, `marginMs` from then (to store or hand over what it returned). 0 when neither holds.
   */
  exitHoldMs(marginMs: number, now: number = this.#now()): number {
    let until = this.#lastSettledAt > 0 ? this.#lastSettledAt + marginMs : 0;
    for (const { dueAt } of this.#inFlight) until = Math.max(until, dueAt + marginMs);
    return Math.max(0, until - now);
  }

  /**
   * For work that, once interrupted, must still say what it left behind (an export: how many
   * records the file holds): a section opens the moment `signal` aborts, in the abort itself, so
   * before any later signal is handled, and closes when the returned function is called (once the
   * work has flushed what it wrote and made its message). However many signals come, the exit
   * waits for it as for any section, and then gives the report its grace.
   */
  holdOnceAborted(signal: AbortSignal): () => void {
    let held = false;
    let released = false;
    const hold = (): void => {
      if (released) return;
      held = true;
      this.#open++;
    };
    if (signal.aborted) hold();
    else signal.addEventListener('abort', hold, { once: true });
    return () => {
      if (released) return;
      released = true;
      signal.removeEventListener('abort', hold);
      if (held) this.#close();
    };
  }

  /** Registers terminal restoration (cursor, live line) to run on exit and on interrupt. */
  onCleanup(fn: () => void): () => void {
    this.#cleanups.push(fn);
    return () => {
      const i = this.#cleanups.indexOf(fn);
      if (i >= 0) this.#cleanups.splice(i, 1);
    };
  }

  runCleanups(): void {
    for (const fn of this.#cleanups.splice(0).reverse()) {
      try {
        fn();
      } catch {
        // Restoring the terminal must never mask the real outcome.
      }
    }
  }

  #close(): void {
    this.#open--;
    if (this.#open === 0) for (const wake of this.#waiters.splice(0)) wake();
  }
}
