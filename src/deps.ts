// What a command needs from outside, as types only (gh's Factory and IOStreams). A command's
// `run(deps, options)` reads no `process`, no global state: src/app/factory.ts builds these for
// the process (src/main.ts) and tests build them around fake streams and a fake clock.
import type { Settings } from './config/settings.js';
import type { HttpClient } from './http/client.js';
import type { IO } from './io/io.js';
import type { JsonFilter } from './io/jq.js';
import type { Prompter } from './io/prompt.js';
import type { Style } from './io/style.js';
import type { Clock } from './platform/clock.js';
import type { Platform } from './platform/platform.js';
import type { Redactor } from './text/redact.js';

import type { Env } from './platform/env.js';

export type { Env };

/** The flags every command takes, validated. */
export interface GlobalOptions {
  json: boolean;
  /** --jq: the filter every JSON output goes through (it implies --json). */
  jq?: string | undefined;
  verbose: boolean;
  noInput: boolean;
  noColor: boolean;
  timeoutMs: number;
  allowHttp: boolean;
  baseUrl?: string | undefined;
  profile?: string | undefined;
}

/** What an exit must not cut, and what must be restored however the run ends (src/app/guard.ts). */
export interface ExitGuard {
  /** Runs `work` as a section that an exit after Ctrl-C waits for (a config write, a key not yet stored). */
  critical<T>(work: () => Promise<T>): Promise<T>;
  /** A request that changes something is on the wire until `dueAt` at the latest; call the result when it settled. */
  mutationInFlight(dueAt: number): () => void;
  /** From the moment `signal` aborts, a section the exit waits for, until the result is called: to say what an interrupted export left. */
  holdOnceAborted(signal: AbortSignal): () => void;
  /** Terminal restoration (cursor, live line) to run on exit and on interrupt; the result unregisters it. */
  onCleanup(fn: () => void): () => void;
}

export interface Deps {
  io: IO;
  env: Env;
  /** The system the run is on (platform/platform.ts decides everything that depends on it). */
  platform: Platform;
  globals: GlobalOptions;
  /** Settings by the contract's precedence; the config file is read on first use. */
  readonly settings: Settings;
  /**
   * An HTTP client for the configured service (one per key); the key is registered with the
   * redactor. `evenIfInterrupted`: its requests are sent after Ctrl-C too (undoing what the
   * interrupted work did, as a rotation's rollback does); otherwise none is sent after it.
   */
  http(options?: { apiKey?: string; evenIfInterrupted?: boolean }): Promise<HttpClient>;
  prompter: Prompter;
  /** The --jq filter, compiled (stdout and hand-overs already go through it); undefined without --jq. */
  jq: JsonFilter | undefined;
  clock: Clock;
  /** Values never to be printed: stdout, stderr and every response body are redacted of them. */
  redactor: Redactor;
  /** Aborted on Ctrl-C / SIGTERM (reason: InterruptedError) or when stdout fails. */
  signal: AbortSignal;
  guard: ExitGuard;
  /** Colour for stdout (or stderr, for progress lines); chalk loads only if colour is on. */
  style(stream?: 'stdout' | 'stderr'): Promise<Style>;
  /**
   * Writes what must reach the user (a new key, `auth token`) to stdout, unredacted; resolves once
   * written, rejects with the reason if stdout cannot take it, so the caller can say where the key is.
   * `mustCarry`: a key stdout is the only home of; a --jq filter that leaves it out is overruled.
   */
  handOver(text: string, options?: { mustCarry?: string }): Promise<void>;
  /**
   * The exit code of the run should stdout's reader leave (EPIPE: `| true`, `| head -1`), for a
   * command whose code is a job's outcome (`job watch`, `job status --exit-status`): what is known
   * at that moment, never a success it cannot claim. Unset, a reader that leaves is exit 0.
   */
  exitIfReaderLeaves(code: number): void;
  /** Reports a failure that does not end the command (one key of several); returns its exit code. */
  report(error: unknown): number;
  /** `crawl/1.2.3 node/20.1.0`. */
  userAgent: string;
}
