// Several jobs, one exit code: the worst of them, so that `crawl job watch a b c && deploy` does
// what it says. A job that could not be read (not found, a rejected key, the network) outranks
// every status with its own code; then errored > cancelled_due_to_limits > cancelled_due_to_timeout
// > cancelled_by_user; then a job still unfinished (7: --max-wait, or status --exit-status); then
// completed (0).
import { ExitCode } from '../../../exit-codes.js';

const STATUS_RANK: ReadonlyMap<number, number> = new Map([
  [ExitCode.ok, 0],
  [ExitCode.waitElapsed, 1],
  [ExitCode.cancelledByUser, 2],
  [ExitCode.cancelledDueToTimeout, 3],
  [ExitCode.cancelledDueToLimits, 4],
  [ExitCode.errored, 5],
]);

/** The outcome of one id: its job's exit code, or the code of the failure that kept it from being read. */
export type Outcome = { kind: 'job'; code: number } | { kind: 'failed'; code: number };

export function worstOutcome(outcomes: readonly Outcome[]): number {
  // The first failure in the order the ids were given: its code, whatever it is.
  const failed = outcomes.find((o) => o.kind === 'failed');
  if (failed) return failed.code;
  let worst: number = ExitCode.ok;
  for (const { code } of outcomes) if ((STATUS_RANK.get(code) ?? 0) > (STATUS_RANK.get(worst) ?? 0)) worst = code;
  return worst;
}
