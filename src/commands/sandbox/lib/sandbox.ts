import type { Deps } from '../../../deps.js';
import { CrawlError, UsageError } from '../../../errors.js';
import { isLoopbackHost, parseBaseUrl } from '../../../http/url.js';
import { writeJson } from '../../../io/json.js';
import { crawlLauncher } from '../../../platform/platform.js';
import { keyDefect } from '../../../text/keys.js';
import { VERSION } from '../../../version.js';
import { environmentLine, programWords, quotingFor, shellForms } from '../../../text/shell.js';

export interface SandboxOptions {
  port: number;
  /** --port given on the command line (not its default): for --reset, it names the sandbox. */
  portGiven: boolean;
  latency: number | undefined;
  failEvery: number | undefined;
  rateLimitEvery: number | undefined;
  dropEvery: number | undefined;
  log: boolean;
  reset: boolean;
}

/** `crawl sandbox`: the local stand-in for the service (see src/sandbox). Runs until Ctrl-C. */
export async function sandboxRun(deps: Deps, options: SandboxOptions): Promise<number> {
  const fail = (message: string, exitCode: number, hint?: string): number => deps.report(new CrawlError(message, exitCode, hint === undefined ? {} : { hint }));
  // With --json the sandbox writes one document to stdout, laid out as every command's is.
  const stdout = deps.globals.json ? { write: (text: string) => writeJson(deps.io, text.trimEnd()) } : deps.io.stdout;
  if (options.reset) {
    const { resetSandbox } = await import('../../../sandbox/cli.js');
    const { crawl } = await anotherShell(deps);
    return resetSandbox({ url: sandboxUrl(deps, options), stdout, stderr: deps.io.stderr, json: deps.globals.json, fail, crawl, timeoutMs: deps.globals.timeoutMs });
  }
  const { runSandbox } = await import('../../../sandbox/cli.js');
  const { portGiven: _portGiven, reset: _reset, ...serving } = options;
  const { key, keyNote } = await bootstrapKey(deps, options.port);
  return runSandbox({
    ...serving,
    stdout,
    stderr: deps.io.stderr,
    json: deps.globals.json,
    fail,
    key,
    keyNote,
    stop: deps.signal,
    deadline: (ms, signal) => deps.clock.deadline(ms, signal),
    ...(await anotherShell(deps)),
  });
}

/**
 * How the lines to run in another shell are written: crawl as this run was started (a clone's
 * `node bin/crawl.js` has no `crawl` on PATH until `npm link`), looked up on PATH only when a
 * line needs it; variables set in the words of the shell in use (a line for each where it cannot
 * be told, text/shell.ts's quotingFor).
 */
async function anotherShell(deps: Deps): Promise<{
  crawl: () => string;
  setVariables: (variables: ReadonlyArray<readonly [string, string]>) => ReadonlyArray<{ text: string; shell?: string }>;
}> {
  const { thisCrawlOnPath } = await import('../../../platform/crawl-on-path.js');
  const quoting = quotingFor(deps.platform, deps.env);
  let words: string | undefined;
  return {
    crawl: () => (words ??= programWords(crawlLauncher(deps.platform, thisCrawlOnPath(deps.platform, deps.env), VERSION), quoting, () => 'path of bin\\crawl.js')),
    setVariables: (variables) => shellForms(quoting, (shell) => environmentLine(variables, shell)),
  };
}

/** CRAWL_SANDBOX_KEY, else the key kept for the port (none for --port 0, whose port changes anyway). */
async function bootstrapKey(deps: Deps, port: number): Promise<{ key: string | undefined; keyNote: string | undefined }> {
  const chosen = deps.env.CRAWL_SANDBOX_KEY;
  if (chosen) {
    // A sandbox that took any text would hand out a key every other command refuses. The value is
    // a key: the message names what is wrong with it, never the key.
    const defect = chosen.startsWith('crk_') && chosen.length > 'crk_'.length ? keyDefect(chosen) : 'does not start with crk_ and go on, as the service\'s keys do';
    if (defect !== undefined) throw new UsageError(`CRAWL_SANDBOX_KEY ${defect}: no command would send it`, 'give crk_ and letters or digits, such as crk_TestKeyForMyScript0123456789');
    return { key: chosen, keyNote: 'The key is CRAWL_SANDBOX_KEY\'s.' };
  }
  if (port === 0) return { key: undefined, keyNote: 'A new key at every start on a random port (--port 0); CRAWL_SANDBOX_KEY sets one.' };
  // Loaded when a sandbox starts: the work of every command is one chunk, and a status read must not load node:crypto.
  const { keptSandboxKey } = await import('../../../config/sandbox-key.js');
  const kept = keptSandboxKey(deps.env, deps.platform, port);
  if (kept.key === undefined) return { key: undefined, keyNote: `A new key at every start: ${kept.why}; CRAWL_SANDBOX_KEY sets one.` };
  return { key: kept.key, keyNote: `The key stays the same at every start on port ${port} (kept in ${kept.file}): a saved login keeps working.` };
}

/**
 * The sandbox --reset talks to: the one at --port when given, else the one the other commands use
 * (--base-url, CRAWL_BASE_URL, the profile), else the default port. Control requests go to this
 * machine only: a base URL elsewhere is a real service, and is refused.
 */
function sandboxUrl(deps: Deps, options: SandboxOptions): URL {
  const local = new URL(`http://127.0.0.1:${options.port}/`);
  if (options.portGiven) return local;
  const base = deps.settings.baseUrl();
  if (base === undefined) return local;
  const url = parseBaseUrl(base.value);
  if (url.protocol !== 'http:' || !isLoopbackHost(url.hostname)) {
    throw new UsageError(`--reset restores a sandbox on this machine, and the base URL in use is ${url.origin}`, 'name the sandbox with --port <n>');
  }
  return url;
}
