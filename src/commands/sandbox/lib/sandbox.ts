import type { Deps } from '../../../deps.js';
import { CrawlError, UsageError } from '../../../errors.js';
import { isLoopbackHost, parseBaseUrl } from '../../../http/url.js';

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
  const fail = (message: string, exitCode: number): number => deps.report(new CrawlError(message, exitCode));
  if (options.reset) {
    const { resetSandbox } = await import('../../../sandbox/cli.js');
    return resetSandbox({ url: sandboxUrl(deps, options), stdout: deps.io.stdout, stderr: deps.io.stderr, json: deps.globals.json, fail });
  }
  const { runSandbox } = await import('../../../sandbox/cli.js');
  const { portGiven: _portGiven, reset: _reset, ...serving } = options;
  return runSandbox({
    ...serving,
    stdout: deps.io.stdout,
    stderr: deps.io.stderr,
    json: deps.globals.json,
    fail,
    key: deps.env.CRAWL_SANDBOX_KEY || undefined,
    stop: deps.signal,
  });
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
