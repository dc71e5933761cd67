// Public shapes of the sandbox. Other modules (the CLI's `crawl sandbox`, the test suite, the
// benchmark) code against these, so they change only by adding optional fields.

export interface SandboxOptions {
  /** Default 0: an ephemeral port. The sandbox always binds 127.0.0.1. */
  port?: number;
  /** Value of the bootstrap key; default a random `crk_` key. */
  key?: string;
  /** Default true: load the demo jobs (see seed.ts). */
  seed?: boolean;
  /** Called once each request has been answered (or dropped), for `crawl sandbox --log`. */
  log?: (entry: RequestLogEntry) => void;
  /** What the sandbox's delays (latency, trickles) wait on: real time by default. */
  clock?: SandboxClock;
}

/**
 * Time as the sandbox's delays see it. A test gives one it moves on itself, to say exactly how
 * long an answer is held without waiting for it (the CLI's Clock has this shape too).
 */
export interface SandboxClock {
  /** Resolves after `ms`; rejects once `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Calls `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => void): () => void;
}

/** One request as `crawl sandbox --log` shows it: never a key (see server.ts). */
export interface RequestLogEntry {
  method: string;
  /** Path and query as received, with any key in it replaced by `[redacted]`. */
  url: string;
  /** The status answered, or what happened instead. */
  outcome: number | 'dropped' | 'no answer';
  ms: number;
  /** The key the request carried, by name and listed prefix; `unknown` or `revoked` when it was not a working key. */
  key: { name: string; keyPrefix: string; revoked: boolean } | 'none' | 'unknown';
  /** A /__sandbox/ control request rather than the service's API. */
  control: boolean;
}

export interface Sandbox {
  /** "http://127.0.0.1:PORT", no trailing slash. */
  url: string;
  /** The bootstrap key: active, named "bootstrap". */
  key: string;
  /** Stops listening and destroys every socket, including hung and kept-alive ones. */
  close(): Promise<void>;
  addJob(spec: JobSpec): SandboxJob;
  getJob(id: string): SandboxJob | undefined;
  /**
   * A new active key. `key` and `keyPrefix` make keys a real service could hand out too: two with
   * the same listed prefix, or prefixes of different lengths (one beginning another).
   */
  addKey(name: string, options?: { key?: string; keyPrefix?: string; createdAt?: string; lastUsedAt?: string | null }): { id: string; key: string; keyPrefix: string; name: string };
  /** Faults are checked in injection order; the first that applies wins (latency excepted, see faults.ts). */
  inject(fault: Fault): void;
  clearFaults(): void;
  /** As at start-up: no faults, no requests recorded, the demo jobs (if seeded) alone, the bootstrap key alone (same value). */
  reset(): void;
  /** Every service request received, in order (control endpoints excluded). */
  requests: RequestRecord[];
}

export interface RequestRecord {
  method: string;
  /** Raw path and query, exactly as received. */
  url: string;
  /** The request carried a valid, active key. */
  authorized: boolean;
  /** The request carried any Authorization header. */
  hadAuthorization: boolean;
}

export interface PagesShape {
  records?: 'pages' | 'data';
  next?: 'next' | 'nextCursor';
  link?: 'cursor' | 'path' | 'url';
}

export interface JobSpec {
  /** Default: "job_" + 12 hex digits. An existing id is replaced. */
  id?: string;
  /** Default "https://example.com/". */
  url?: string;
  /** Any string: unknown statuses are allowed on purpose. */
  status: string;
  pagesTotal: number;
  /** Default: pagesTotal when completed, else 0. */
  pagesFinished?: number;
  /** Default: 0 while running or pending, else pagesFinished. */
  creditsUsed?: number;
  errorMessage?: string;
  /** Default: now, ISO 8601 UTC. */
  createdAt?: string;
  /** How a running job progresses: per GET of the job and/or per elapsed second. */
  advance?: { perPoll?: number; perSecond?: number; endStatus?: string };
  /** Default { records: 'pages', next: 'next', link: 'cursor' }. */
  pagesShape?: PagesShape;
  /**
   * The most records one batch of its pages holds, whatever limit the client asks for (a service
   * that pages in smaller batches than asked); its links still carry the limit asked. Default:
   * the limit.
   */
  pagesPerBatch?: number;
  cancel?: {
    /** The job keeps reporting its status for this many GETs after DELETE. */
    lagPolls?: number;
    /** 'job' (default): 200 with the job; 'message': 202 with a message. */
    response?: 'job' | 'message';
  };
  /** Merged into the job object last, so it can also override standard fields. */
  extra?: Record<string, unknown>;
}

/** The stored job. It is live: the server reads it on every request. */
export interface SandboxJob {
  id: string;
  url: string;
  status: string;
  pagesTotal: number;
  pagesFinished: number;
  creditsUsed: number;
  createdAt: string;
  errorMessage?: string;
  extra: Record<string, unknown>;
}

export type FaultKind =
  | 'latency'
  | 'status'
  | 'retry-after'
  | 'drop'
  | 'drop-mid-body'
  | 'hang'
  | 'trickle'
  | 'redirect';

export interface Fault {
  /** Match this method only; default any. */
  method?: string;
  /** Exact raw pathname, or, when it starts with '^', a RegExp source tested against pathname + search. */
  path?: string;
  /** Let this many matching requests through untouched first. */
  skip?: number;
  /** Apply to this many matching requests, then stop matching; default unlimited. */
  times?: number;
  kind: FaultKind;
  /** latency: delay before normal handling; trickle: interval between bytes. */
  ms?: number;
  /** status: default 500; retry-after: default 429; redirect: default 302. */
  status?: number;
  /** status: raw body; default {"success":false,"error":"Injected fault"}. */
  body?: string;
  /** status: default application/json. */
  contentType?: string;
  headers?: Record<string, string>;
  /** retry-after: the Retry-After value (seconds or an HTTP date); default "1". */
  retryAfter?: string;
  /** redirect: the Location header; default the request's own path. */
  location?: string;
}
