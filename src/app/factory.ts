import { Settings } from '../config/settings.js';
import type { Deps, Env, GlobalOptions } from '../deps.js';
import { UsageError } from '../errors.js';
import type { HttpClient, TlsTrust } from '../http/client.js';
import { createIO, type RawStreams } from '../io/io.js';
import type { JsonFilter } from '../io/jq.js';
import { Prompter } from '../io/prompt.js';
import { loadStyle, type Style } from '../io/style.js';
import { writeError } from '../io/write-error.js';
import type { Clock } from '../platform/clock.js';
import type { Platform } from '../platform/platform.js';
import { prettyJson } from '../text/json-pretty.js';
import { keyDefect } from '../text/keys.js';
import { Redactor } from '../text/redact.js';
import { sanitize, sanitizeLines } from '../text/sanitize.js';
import { quotingFor } from '../text/shell.js';
import { VERSION } from '../version.js';
import { reportError } from './exit.js';
import type { Guard } from './guard.js';

export interface DepsInputs {
  env: Env;
  platform: Platform;
  streams: RawStreams;
  clock: Clock;
  globals: GlobalOptions;
  signal: AbortSignal;
  guard: Guard;
  nodeVersion: string;
  /** The --jq filter, compiled. */
  jq?: JsonFilter | undefined;
}

/** What the run has built, beyond what commands see: for runCli to finish the run. */
export interface RunDeps extends Deps {
  /** True for a stdout error that a hand-over has already dealt with (it says where the key is). */
  handledStdoutError(error: Error): boolean;
  /** A hand-over found stdout broken: nothing more is written (or flushed) there. */
  stdoutBroken(): boolean;
  /** The code the command gave for a reader that leaves (Deps.exitIfReaderLeaves), if it gave one. */
  readerLeftCode(): number | undefined;
  /** Closes every HTTP client's connections. */
  close(): Promise<void>;
}

/**
 * The Deps of one run (gh's Factory): the IO over the given streams, settings read on first use,
 * one HTTP client per key, the prompter, colour. Nothing here reads `process`.
 */
export function createDeps(inputs: DepsInputs): RunDeps {
  const { env, platform, globals, signal, guard, clock } = inputs;
  const redactor = new Redactor();
  const io = createIO(inputs.streams, redactor, { env, noColor: globals.noColor, noInput: globals.noInput, filter: inputs.jq });
  const clients = new Map<string, HttpClient>();
  const handledStdoutErrors = new WeakSet<Error>();
  const userAgent = `crawl/${VERSION} node/${inputs.nodeVersion}`;
  let settings: Settings | undefined;
  let stdoutStyle: Promise<Style> | undefined;
  let broken = false;
  let readerLeftCode: number | undefined;
  const saidVerbose = new Set<string>();
  // The authorities https:// trusts, read once a run, at its first request to an https:// service.
  let secureContext: Promise<TlsTrust> | undefined;
  // Loaded for an https:// service only: node:tls is undici's to load, and a plain http:// run loads none of it.
  const trustFor = async (base: URL): Promise<TlsTrust> => {
    const { tlsOptionsFor } = await import('../http/trust.js');
    return tlsOptionsFor(env, inputs.nodeVersion, base.host, (line) => {
      if (globals.verbose) io.stderr.write(`* ${line}\n`);
    });
  };

  /**
   * A hand-over through --jq. The key is never lost to the filter: if jq fails on the document, it
   * goes out unfiltered, with a warning; if the filter leaves out a key stdout is the only home of
   * (`mustCarry`), so does it; if it leaves out another, a warning says so.
   */
  const filterHandOver = (text: string, mustCarry: string | undefined): string => {
    if (!inputs.jq) return text;
    // Unfiltered, on a terminal, the document is shown as --json shows it there: its strings'
    // control characters escaped (--jq turned that layout off).
    const unfiltered = (): string => (io.stdoutIsTTY ? prettyJson(text) + '\n' : text);
    const { output, error } = inputs.jq.apply(text);
    if (error) {
      io.stderr.write(`crawl: warning: ${error.message}: printed unfiltered, so that the key is not lost\n`);
      return unfiltered();
    }
    if (mustCarry !== undefined && !output.includes(mustCarry)) {
      io.stderr.write('crawl: warning: the --jq filter left out the new key, which is kept nowhere else: printed unfiltered, so that the key is not lost\n');
      return unfiltered();
    }
    if (redactor.redact(text) !== text && redactor.redact(output) === output) {
      io.stderr.write('crawl: warning: the --jq filter left the key out of what it printed\n');
    }
    // On a terminal, cleared of what would act on it (the filter's strings are raw); a key has none of it.
    return io.stdoutIsTTY ? sanitizeLines(output) : output;
  };

  const deps: RunDeps = {
    io,
    env,
    platform,
    globals,
    get settings() {
      settings ??= new Settings(
        env,
        { baseUrl: globals.baseUrl, profile: globals.profile },
        // --json keeps stderr to the one error line a script parses.
        { notice: (line) => (globals.json ? undefined : io.stderr.write(`crawl: ${line}\n`)), clock, guard },
        {
          clock,
          // Someone at a terminal can answer the keyring's unlock dialog; a script or CI cannot. Asked
          // only when an unlock is needed: looking at stdin makes Node open it (and load fs streams).
          interactive: () => io.stdinIsTTY && io.stderrIsTTY && !globals.noInput && !env.CI,
          notice: (line) => io.stderr.write(`crawl: ${line}\n`),
          // Once a run: a login writes, then reads back, each over a connection of its own.
          verbose: (line) => {
            if (!globals.verbose || saidVerbose.has(line)) return;
            saidVerbose.add(line);
            io.stderr.write(`* ${sanitize(line)}\n`);
          },
          onCommandStderr: (text) => io.stderr.write(text),
          onSecret: (key) => redactor.add(key),
          platform: platform.os,
          ...(platform.uid === undefined ? {} : { uid: platform.uid }),
          runtimeDir: platform.runtimeDir,
          bindingFrom: platform.keyringBindingFrom,
        },
        platform,
      );
      return settings;
    },
    async http(options = {}) {
      // The HTTP layer loads with the first client: a command that sends nothing (config,
      // completion) never loads it.
      const { HttpClient, ENV_KEY_UNAUTHORIZED_HINT, proxyFromEnv, parseBaseUrl } = await import('./http-layer.js');
      // The key first known to the redactor: a base URL that carries it (http://user:KEY@host)
      // is refused below with a message and a hint that must not show it.
      // (A key that cannot be read is reported below, in the order the checks have always run.)
      // With a key given, the profile's is looked at only where that costs nothing: no keyring
      // is asked and no key command run for a key this client will not send.
      for (const known of options.apiKey === undefined ? [await deps.settings.apiKey(signal).then((k) => k?.value, () => undefined)] : localKeys(env, () => deps.settings.stored())) {
        if (known !== undefined) redactor.add(known);
      }
      const base = parseBaseUrl(deps.settings.requireBaseUrl().value);
      let apiKey = options.apiKey;
      // CRAWL_API_KEY wins over every store: a 401 says so, since `auth login` cannot help then.
      let fromEnvironment = false;
      if (apiKey === undefined) {
        const resolved = await deps.settings.requireApiKey(signal);
        apiKey = resolved.value;
        fromEnvironment = resolved.source === 'env';
      }
      // Settings already refuse such a key naming its source; this covers a key given directly
      // (typed at `auth login`, made by the service), which undici would fail on deep inside.
      const defect = keyDefect(apiKey);
      if (defect !== undefined) throw new UsageError(`the API key ${defect}; refusing to send it`, 'a key is one line of printable characters');
      const id = options.evenIfInterrupted ? `${apiKey}\u0000after-interrupt` : apiKey;
      const known = clients.get(id);
      if (known) return known;
      redactor.add(apiKey);
      const client = new HttpClient({
        baseUrl: base,
        apiKey,
        timeoutMs: globals.timeoutMs,
        allowHttp: globals.allowHttp,
        userAgent,
        // Trace lines quote URLs and reasons from the server: sanitised here, redacted by stderr.
        trace: globals.verbose ? (line) => io.stderr.write(`* ${sanitize(line)}\n`) : undefined,
        interrupt: options.evenIfInterrupted ? undefined : signal,
        onMutation: (dueAt) => guard.mutationInFlight(dueAt),
        redactor,
        clock,
        proxy: proxyFromEnv(env),
        unauthorizedHint: fromEnvironment ? ENV_KEY_UNAUTHORIZED_HINT : undefined,
        tls: base.protocol === 'https:' ? () => (secureContext ??= trustFor(base)) : undefined,
      });
      clients.set(id, client);
      return client;
    },
    prompter: new Prompter(io, signal),
    jq: inputs.jq,
    clock,
    redactor,
    signal,
    guard,
    style(stream = 'stdout') {
      if (stream === 'stderr') return loadStyle(io.colorStderr);
      stdoutStyle ??= loadStyle(io.color);
      return stdoutStyle;
    },
    handOver(unfiltered, options = {}) {
      const text = filterHandOver(unfiltered, options.mustCarry);
      return new Promise((resolve, reject) => {
        const failed = (error: Error): void => {
          handledStdoutErrors.add(error);
          broken = true;
          reject(writeError(undefined, error));
        };
        try {
          io.rawStdout.write(text, (error) => (error ? failed(error) : resolve()));
        } catch (error) {
          // A file on a full disk fails at once (Node writes files synchronously), not in the callback.
          failed(error as Error);
        }
      });
    },
    exitIfReaderLeaves(code) {
      readerLeftCode = code;
    },
    report(error) {
      return reportError(io, error, {
        json: globals.json,
        verbose: globals.verbose,
        redact: (text) => redactor.redact(text),
        suggestionFlags: [...deps.settings.suggestionFlags(), ...(globals.allowHttp ? ['--allow-http'] : [])],
        quoting: quotingFor(platform, env),
      });
    },
    userAgent,
    handledStdoutError: (error) => handledStdoutErrors.has(error),
    stdoutBroken: () => broken,
    readerLeftCode: () => readerLeftCode,
    async close() {
      await Promise.all([...clients.values()].map((c) => c.close()));
    },
  };
  return deps;
}

/** The keys this machine holds in the clear (CRAWL_API_KEY, a plaintext profile key), read without asking any store. */
function localKeys(env: Env, stored: () => { 'api-key'?: string }): (string | undefined)[] {
  let fromFile: string | undefined;
  try {
    fromFile = stored()['api-key'];
  } catch {
    // A config that cannot be read is reported by whatever needs it.
  }
  return [env.CRAWL_API_KEY?.trim() || undefined, fromFile];
}
