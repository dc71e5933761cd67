import type { JobsClient } from './jobs.js';
import type { KeysClient } from './keys.js';
import type { Env } from '../platform/env.js';

/** How a client finds the service; what is left out is resolved as the CLI resolves it. */
export interface ClientOptions {
  /** Else CRAWL_BASE_URL, else the profile's `base-url` in the config file. */
  baseUrl?: string | undefined;
  /** Else CRAWL_API_KEY, else the profile's `api-key`. Never logged, never in an error. */
  apiKey?: string | undefined;
  /** Else CRAWL_PROFILE, else `default`. */
  profile?: string | undefined;
  /** Each attempt of a request, as the CLI's --timeout (default 30 000); a GET is tried up to four times. */
  timeoutMs?: number | undefined;
  /**
   * Aborts every request and wait of this client; they reject with an InterruptedError. A POST or
   * DELETE already on the wire is let finish (its answer, or its timeout: OutcomeUnknownError), as
   * the CLI lets it: abandoned, whether the key was made or revoked would be unknown.
   */
  signal?: AbortSignal | undefined;
  /** As the CLI's --allow-http: clear-text http to a host other than loopback. */
  allowHttp?: boolean | undefined;
  /**
   * The environment settings are read from (default: the process's). The config file is then
   * found from it (CRAWL_CONFIG_DIR, XDG_CONFIG_HOME) or else in the user's home folder: give
   * CRAWL_CONFIG_DIR to keep a test away from the developer's own config.
   */
  env?: Env | undefined;
}


export interface CrawlClient {
  /** The service's base URL, as resolved. */
  readonly baseUrl: string;
  readonly jobs: JobsClient;
  readonly keys: KeysClient;
  /** Closes the client's kept-alive connections (the process can then exit at once). */
  close(): Promise<void>;
}
