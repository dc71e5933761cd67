// How a test shows that some work grows linearly with its input, on CPU time rather than the
// clock: the work for `small` and for ten times that, each the best of several runs. Linear is a
// ratio of about 10, quadratic about 100.
//
// CPU time is the process's: files that ran before in the worker may still have collections and
// sockets going, and a machine under load slows memory. So the runs of the two sizes alternate
// (whatever weighs on the worker weighs on both), the large size (ten times longer, so less
// troubled by a stray interruption) is run fewer times than the small, and a ratio over the bound
// is measured once more before it fails: noise seldom strikes twice in a row, a quadratic cost
// always does.
import { expect } from 'vitest';

/** Below this a small run's time is mostly noise: the ratio is taken against it instead. */
const FLOOR_MS = 0.5;

async function cpuMs(work: () => unknown): Promise<number> {
  const start = process.cpuUsage();
  const done = work();
  // Synchronous work is measured without a turn of the event loop in between.
  if (done instanceof Promise) await done;
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** The CPU time of `run(large)` over that of `run(small)`, each the best of its runs. */
export async function cpuRatio(run: (size: number) => unknown, small: number, large: number): Promise<number> {
  // The first runs compile and optimise the code: not measured.
  await run(small);
  await run(small);
  let bestSmall = Infinity;
  let bestLarge = Infinity;
  for (let i = 0; i < 5; i++) {
    if (i < 3) bestLarge = Math.min(bestLarge, await cpuMs(() => run(large)));
    bestSmall = Math.min(bestSmall, await cpuMs(() => run(small)));
  }
  return bestLarge / Math.max(bestSmall, FLOOR_MS);
}

/** Fails unless ten times the input costs well under the hundred times a quadratic cost would. */
export async function expectLinear(run: (size: number) => unknown, small: number, large: number, bound = 60): Promise<void> {
  const first = await cpuRatio(run, small, large);
  const ratio = first < bound ? first : Math.min(first, await cpuRatio(run, small, large));
  expect(ratio, `CPU time for ${large} over that for ${small} (first measure ${first.toFixed(1)})`).toBeLessThan(bound);
}
