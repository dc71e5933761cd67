// The service's objects as the interface documents them: types only, shared by the CLI and the
// Node client's declarations (which must not reach the HTTP layer's types).

/** The statuses the interface documents (States and transitions). */
export type JobStatus = 'pending' | 'running' | 'completed' | 'errored' | 'cancelled_by_user' | 'cancelled_due_to_timeout' | 'cancelled_due_to_limits';

/**
 * A crawl job as documented; fields the interface does not show pass through untouched. Only `id`
 * and `status` are checked when a job is read: the other fields are the service's values as sent,
 * whatever their type (a script narrows them: `typeof job.pagesTotal === 'number'`), since a
 * declared `number` that a server can break would fail where the compiler promised it would not.
 */
export interface Job {
  id: string;
  /** One of the documented statuses, or a string the interface does not show (kept as sent). */
  status: JobStatus | (string & {});
  url?: unknown;
  pagesTotal?: unknown;
  pagesFinished?: unknown;
  creditsUsed?: unknown;
  createdAt?: unknown;
  errorMessage?: unknown;
  [field: string]: unknown;
}

/** A key as listed by GET /api/keys; unknown fields pass through. */
export interface ApiKey {
  id: string;
  name?: unknown;
  keyPrefix?: unknown;
  lastUsedAt?: unknown;
  createdAt?: unknown;
  [field: string]: unknown;
}
