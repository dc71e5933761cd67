import type { HttpClient } from '../http/client.js';
import type { Redactor } from '../text/redact.js';
import type { Clock } from '../platform/clock.js';
import type { Env } from '../platform/env.js';
import type { Platform } from '../platform/platform.js';

/** What the parts of a client share: the HTTP client of a key, made on first use. */
export interface Connection {
  http(apiKey?: string, options?: { evenIfAborted?: boolean }): HttpClient;
  /** The key in use (settings resolved on first use). */
  apiKey(): string;
  system: ClientSystem;
  signal: AbortSignal;
  redactor: Redactor;
}

/** What the client runs on besides its options: the process's, or a test's. */
export interface ClientSystem {
  env: Env;
  clock: Clock;
  nodeVersion: string;
  /** Where the config file is looked for; this process's system by default. */
  platform?: Platform;
}
