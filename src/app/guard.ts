/**
 * Work that an exit must not cut: writing the config file, a request that changes something
 * while it is on the wire (its answer says what the service did), and the span from the moment the
 * service has made a key until that key is stored or handed over on stdout. Killing the process
 * inside one loses what the user cannot get back, so after Ctrl-C the forced exit (src/cli/main.ts)
 * waits for open sections to close. Each section is short and bounded by its own timeouts.
 * Process-wide on purpose: signals are.
 */
let open = 0;
const waiters: Array<() => void> = [];

export async function critical<T>(work: () => Promise<T>): Promise<T> {
  open++;
  try {
    return await work();
  } finally {
    open--;
    if (open === 0) for (const wake of waiters.splice(0)) wake();
  }
}

export function criticalOpen(): boolean {
  return open > 0;
}

/** Resolves once no section is open (at once if none is). */
export function noCriticalOpen(): Promise<void> {
  if (open === 0) return Promise.resolve();
  return new Promise((resolve) => waiters.push(resolve));
}

/** When each request that changes something, now on the wire, is due to be answered at the latest. */
const inFlight = new Set<{ dueAt: number }>();
let lastSettledAt = 0;

/**
 * A POST or DELETE is on the wire until `dueAt` at the latest (its --timeout): a critical section
 * that the HTTP layer opens, closed by the returned function once the request has settled.
 */
export function mutationInFlight(dueAt: number): () => void {
  const entry = { dueAt };
  inFlight.add(entry);
  open++;
  return () => {
    if (!inFlight.delete(entry)) return;
    lastSettledAt = Date.now();
    open--;
    if (open === 0) for (const wake of waiters.splice(0)) wake();
  };
}

/**
 * How much longer the hard limit of a forced exit must hold off, in ms: while a request that
 * changes something is on the wire, until its deadline plus `marginMs`; after the last one
 * settled, `marginMs` from then (to store or hand over what it returned). 0 when neither holds.
 */
export function exitHoldMs(marginMs: number, now: number = Date.now()): number {
  let until = lastSettledAt > 0 ? lastSettledAt + marginMs : 0;
  for (const { dueAt } of inFlight) until = Math.max(until, dueAt + marginMs);
  return Math.max(0, until - now);
}
