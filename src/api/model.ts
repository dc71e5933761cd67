// The service's objects as the interface documents them: types only, shared by the CLI and the
// Node client's declarations (which must not reach the HTTP layer's types).

/** A crawl job as documented; fields the interface does not show pass through untouched. */
export interface Job {
  id: string;
  status: string;
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
