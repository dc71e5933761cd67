import { Settings } from '../config/settings.js';
import { UsageError } from '../errors.js';
import { HttpClient } from '../http/client.js';
import { parseBaseUrl } from '../http/url.js';
import type { IO } from '../io/io.js';
import { writeError } from '../io/write-error.js';
import { loadStyle, type Style } from '../io/style.js';
import { mutationInFlight } from './guard.js';
import type { Redactor } from '../text/redact.js';
import { sanitize } from '../text/sanitize.js';
import { Prompter } from '../io/prompt.js';
import { keyDefect } from '../text/keys.js';
import { VERSION } from '../version.js';

export interface GlobalOptions {
  json: boolean;
  verbose: boolean;
  noInput: boolean;
  noColor: boolean;
  timeoutMs: number;
  allowHttp: boolean;
  baseUrl?: string | undefined;
  profile?: string | undefined;
}

/**
 * Everything a command needs from outside (gh's options object): streams, settings, an HTTP
 * client factory, a prompter, the clock and the interrupt signal. Commands never read `process`.
 */
export class Context {
  readonly io: IO;
  readonly env: NodeJS.ProcessEnv;
  readonly globals: GlobalOptions;
  readonly settings: Settings;
  readonly interrupt: AbortSignal;
  readonly prompt: Prompter;
  /**
   * Values never to be printed (the keys this run uses, creates or reads). The IO's stdout and
   * stderr redact them from everything written, and the HTTP layer from every body it reads.
   */
  readonly secrets: Redactor;
  /** One client (one keep-alive connection pool) per key, however many requests a command makes. */
  readonly #clients = new Map<string, HttpClient>();
  readonly #cleanups: Array<() => void> = [];
  readonly #handledStdoutErrors = new WeakSet<Error>();
  #style: Promise<Style> | undefined;

  constructor(io: IO, env: NodeJS.ProcessEnv, globals: GlobalOptions, interrupt: AbortSignal) {
    this.io = io;
    // The very redactor the IO's stdout and stderr write through.
    this.secrets = io.redactor;
    this.env = env;
    this.globals = globals;
    this.interrupt = interrupt;
    this.settings = new Settings(
      env,
      { baseUrl: globals.baseUrl, profile: globals.profile },
      // --json keeps stderr to the one error line a script parses.
      { notice: (line) => (globals.json ? undefined : io.stderr.write(`crawl: ${line}\n`)) },
    );
    this.prompt = new Prompter(io, interrupt);
  }

  now(): number {
    return Date.now();
  }

  /** An HTTP client for the configured service; requires a base URL and, unless given, the profile's key. */
  http(options: { apiKey?: string } = {}): HttpClient {
    const base = parseBaseUrl(this.settings.requireBaseUrl().value);
    const apiKey = options.apiKey ?? this.settings.requireApiKey().value;
    // Settings already refuse such a key naming its source; this covers a key given directly
    // (typed at `auth login`, made by the service), which undici would fail on deep inside.
    const defect = keyDefect(apiKey);
    if (defect !== undefined) throw new UsageError(`the API key ${defect}; refusing to send it`, 'a key is one line of printable characters');
    const known = this.#clients.get(apiKey);
    if (known) return known;
    this.secrets.add(apiKey);
    const client = new HttpClient({
      baseUrl: base,
      apiKey,
      timeoutMs: this.globals.timeoutMs,
      allowHttp: this.globals.allowHttp,
      userAgent: `crawl/${VERSION} node/${process.versions.node}`,
      // Trace lines quote URLs and reasons from the server: sanitised here, redacted by stderr.
      trace: this.globals.verbose ? (line) => this.io.stderr.write(`* ${sanitize(line)}\n`) : undefined,
      interrupt: this.interrupt,
      onMutation: mutationInFlight,
      redactor: this.secrets,
    });
    this.#clients.set(apiKey, client);
    return client;
  }

  /** Colour for stdout (`stream: 'stderr'` for progress lines). chalk loads only if colour is on. */
  style(stream: 'stdout' | 'stderr' = 'stdout'): Promise<Style> {
    if (stream === 'stderr') return loadStyle(this.io.colorStderr);
    this.#style ??= loadStyle(this.io.color);
    return this.#style;
  }

  /** Replaces every known secret, in any encoding, in a message (see src/text/redact.ts). */
  redact(text: string): string {
    return this.secrets.redact(text);
  }

  /**
   * Writes what must reach the user (a new key, `auth token`) to stdout, unredacted, and resolves
   * once it is written. If it cannot be (closed pipe, full disk) it rejects with the reason, so the
   * caller can say where the key is instead; the process-wide handler of stdout errors then leaves
   * that failure to it.
   */
  handOver(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.io.rawStdout.write(text, (error) => {
        if (!error) return resolve();
        this.#handledStdoutErrors.add(error);
        reject(writeError(undefined, error));
      });
    });
  }

  /** True for a stdout error that a hand-over has already dealt with. */
  handledStdoutError(error: Error): boolean {
    return this.#handledStdoutErrors.has(error);
  }

  /** Registers terminal restoration (cursor, live line) to run on exit and on interrupt. */
  onCleanup(fn: () => void): () => void {
    this.#cleanups.push(fn);
    return () => {
      const i = this.#cleanups.indexOf(fn);
      if (i >= 0) this.#cleanups.splice(i, 1);
    };
  }

  runCleanups(): void {
    for (const fn of this.#cleanups.splice(0).reverse()) {
      try {
        fn();
      } catch {
        // Restoring the terminal must never mask the real outcome.
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#clients.values()].map((c) => c.close()));
  }
}
