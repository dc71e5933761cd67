import type { JobsClient } from './jobs.js';
import type { KeysClient } from './keys.js';
import type { Env } from '../platform/env.js';

/** How a client finds the service; what is left out is resolved as the CLI resolves it. */
export interface ClientOptions {
  /** Else CRAWL_BASE_URL, else the profile's `base-url` in the config file. */
  baseUrl?: string;
  /** Else CRAWL_API_KEY, else the profile's `api-key`. Never logged, never in an error. */
  apiKey?: string;
  /** Else CRAWL_PROFILE, else `default`. */
  profile?: string;
  /** Per request, as the CLI's --timeout (default 30 000). */
  timeoutMs?: number;
  /**
   * Aborts every request and wait of this client; they reject with an InterruptedError. A POST or
   * DELETE already on the wire is let finish (its answer, or its timeout: OutcomeUnknownError), as
   * the CLI lets it: abandoned, whether the key was made or revoked would be unknown.
   */
  signal?: AbortSignal;
  /** As the CLI's --allow-http: clear-text http to a host other than loopback. */
  allowHttp?: boolean;
  /** The environment settings are read from (default: the process's). */
  env?: Env;
}


export interface CrawlClient {
  /** The service's base URL, as resolved. */
  readonly baseUrl: string;
  readonly jobs: JobsClient;
  readonly keys: KeysClient;
  /** Closes the client's kept-alive connections (the process can then exit at once). */
  close(): Promise<void>;
}
