import { Settings } from '../config/settings.js';
import { HttpClient, type HttpClientOptions } from '../http/client.js';
import { parseBaseUrl } from '../http/url.js';
import type { IO } from '../output/io.js';
import { loadStyle, type Style } from '../output/style.js';
import { Prompter } from './prompt.js';
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
  /** Values never to be printed in errors or traces (the configured key, keys created by this run). */
  readonly secrets = new Set<string>();
  readonly #clients: HttpClient[] = [];
  readonly #cleanups: Array<() => void> = [];
  #style: Promise<Style> | undefined;

  constructor(io: IO, env: NodeJS.ProcessEnv, globals: GlobalOptions, interrupt: AbortSignal) {
    this.io = io;
    this.env = env;
    this.globals = globals;
    this.interrupt = interrupt;
    this.settings = new Settings(env, { baseUrl: globals.baseUrl, profile: globals.profile });
    this.prompt = new Prompter(io, interrupt);
  }

  now(): number {
    return Date.now();
  }

  /** An HTTP client for the configured service; requires a base URL and, unless given, the profile's key. */
  http(options: { apiKey?: string; requireKey?: boolean; onRetry?: HttpClientOptions["onRetry"] } = {}): HttpClient {
    const base = parseBaseUrl(this.settings.requireBaseUrl().value);
    let apiKey = options.apiKey;
    if (apiKey === undefined && options.requireKey !== false) apiKey = this.settings.requireApiKey().value;
    if (apiKey !== undefined) this.secrets.add(apiKey);
    const client = new HttpClient({
      baseUrl: base,
      apiKey,
      timeoutMs: this.globals.timeoutMs,
      allowHttp: this.globals.allowHttp,
      userAgent: `crawl/${VERSION} node/${process.versions.node}`,
      trace: this.globals.verbose ? (line) => this.io.stderr.write(`* ${this.redact(line)}\n`) : undefined,
      interrupt: this.interrupt,
      onRetry: options.onRetry,
    });
    this.#clients.push(client);
    return client;
  }

  /** Colour for stdout (`stream: 'stderr'` for progress lines). chalk loads only if colour is on. */
  style(stream: 'stdout' | 'stderr' = 'stdout'): Promise<Style> {
    if (stream === 'stderr') return loadStyle(this.io.colorStderr);
    this.#style ??= loadStyle(this.io.color);
    return this.#style;
  }

  /** Replaces every known secret in a message, whatever produced it (a server may echo the header). */
  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) {
      if (secret.length >= 8) out = out.split(secret).join('[redacted]');
    }
    return out;
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
    await Promise.all(this.#clients.map((c) => c.close()));
  }
}
