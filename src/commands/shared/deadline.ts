import type { Deps } from '../../deps.js';
import type { CrawlError } from '../../errors.js';

/**
 * `work`, or `giveUp()` thrown once the deadline (a deps.clock time) has passed: a poll may not
 * outlast --max-wait, nor Tab wait on a slow service, for a whole --timeout.
 */
export async function withinDeadline<T>(deps: Deps, deadline: number | undefined, work: Promise<T>, giveUp: () => CrawlError): Promise<T> {
  if (deadline === undefined) return work;
  const settled = new AbortController();
  const expired = deps.clock.deadline(Math.max(0, deadline - deps.clock.now()), settled.signal).then(() => {
    throw giveUp();
  });
  // Once the work has settled, the deadline's rejection (the abort) is of no interest.
  expired.catch(() => undefined);
  try {
    // race() subscribes to `work`, so its late failure is handled; the abandoned request dies with the client.
    return await Promise.race([work, expired]);
  } finally {
    settled.abort();
  }
}
