/**
 * Work that an exit must not cut: writing the config file, and the span from the moment the
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

