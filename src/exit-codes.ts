// The contract's exit codes: stable, documented in the README and `crawl help exit-codes`.
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  network: 5,
  rateLimited: 6,
  waitElapsed: 7,
  errored: 10,
  cancelledByUser: 11,
  cancelledDueToTimeout: 12,
  cancelledDueToLimits: 13,
  interrupted: 130,
  terminated: 143,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export const exitCodeTable: ReadonlyArray<readonly [number, string]> = [
  [0, 'success; for `watch` and `--exit-status`, the job completed'],
  [1, 'any other failure (server error after retries, malformed response, local I/O)'],
  [2, 'usage: bad command, flag or argument; missing base URL or key; refused or unanswered confirmation'],
  [3, 'not found (404): no such job or key'],
  [4, 'authentication (401/403): missing, invalid or revoked key'],
  [5, 'network: cannot connect, DNS, TLS, timeout'],
  [6, 'rate limited (429) after retries'],
  [7, '`watch --max-wait` (or `pages --wait`) elapsed while the job was still pending/running; `job status --exit-status`: the job is still pending/running'],
  [10, 'job status `errored`'],
  [11, 'job status `cancelled_by_user`'],
  [12, 'job status `cancelled_due_to_timeout`'],
  [13, 'job status `cancelled_due_to_limits`'],
  [130, 'interrupted (Ctrl-C)'],
  [143, 'terminated (SIGTERM)'],
];

/** What `crawl help exit-codes` says after the table: the rule for several jobs. */
/** A --jq filter's own exit, which the table does not describe. */
export const filterHaltRule =
  'A `--jq` filter that calls `halt_error(N)` ends crawl with N (5 when it gives none) and its message on stderr, as jq does; `halt` with 0. Those codes are the filter\'s, not the table\'s.';

export const cancelRule =
  '`job cancel` of a job already cancelled by the user exits 0 with a note (the service answers 409 for every job that has ended); a job that completed, errored or was cancelled by the service exits 1 and names its status.';
export const severalJobsRule =
  'With several ids, `job watch` and `job status --exit-status` exit with the worst code among the jobs, in the order 10 > 13 > 12 > 11 > 7 > 0; a job that cannot be read (404, 401, the network) outranks them all with its own code (the first such, in the order the ids were given).';
