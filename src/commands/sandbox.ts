import { Command, Option } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { CrawlError, UsageError } from '../errors.js';
import { isLoopbackHost, parseBaseUrl } from '../http/url.js';
import { parseInteger } from './shared/flags.js';
import { withExamples } from './shared/examples.js';

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

export function command(runF: (options: SandboxOptions) => Promise<void>) {
  return withExamples(
    new Command('sandbox')
      .description('run a local server that behaves like the service; --reset restores the demo jobs of one that runs')
      .addOption(new Option('--port <n>', 'port on 127.0.0.1 (0 picks a free one)').argParser(parseInteger('--port', 0, 65_535)).default(8787, '8787'))
      .addOption(new Option('--log', 'print each request received (method, path, status, which key; keys redacted) on stderr'))
      .addOption(new Option('--reset', 'restore the demo jobs of the sandbox at the base URL in use (or at --port), then exit'))
      .addOption(new Option('--latency <ms>', 'delay every response by this many milliseconds').argParser(parseInteger('--latency', 0, 600_000)))
      .addOption(new Option('--fail-every <n>', 'answer every nth API request with 503').argParser(parseInteger('--fail-every', 1)))
      .addOption(new Option('--rate-limit-every <n>', 'answer every nth API request with 429 and Retry-After: 1').argParser(parseInteger('--rate-limit-every', 1)))
      .addOption(new Option('--drop-every <n>', 'drop the connection of every nth API request').argParser(parseInteger('--drop-every', 1)))
      .action((flags, cmd) => {
        const reset = flags.reset === true;
        const serving = [flags.log && '--log', flags.latency !== undefined && '--latency', flags.failEvery !== undefined && '--fail-every', flags.rateLimitEvery !== undefined && '--rate-limit-every', flags.dropEvery !== undefined && '--drop-every'].filter(Boolean);
        if (reset && serving.length > 0) throw new UsageError(`--reset only restores the demo jobs of a running sandbox: ${serving.join(', ')} belong to starting one`);
        return runF({
          port: flags.port,
          portGiven: cmd.getOptionValueSource('port') === 'cli',
          latency: flags.latency,
          failEvery: flags.failEvery,
          rateLimitEvery: flags.rateLimitEvery,
          dropEvery: flags.dropEvery,
          log: flags.log === true,
          reset,
        });
      }),
    [
      ['a sandbox on port 8787, every request logged', 'crawl sandbox --log'],
      ['try a script against a flaky service', 'crawl sandbox --port 0 --fail-every 3 --latency 200'],
      ['put the demo jobs back, in a sandbox that runs', 'crawl sandbox --reset'],
    ],
  );
}

/** `crawl sandbox`: the local stand-in for the service (see src/sandbox). Runs until Ctrl-C. */
export async function run(deps: Deps, options: SandboxOptions): Promise<number> {
  const fail = (message: string, exitCode: number): number => deps.report(new CrawlError(message, exitCode));
  // With --json the sandbox writes one document to stdout, laid out as every command's is.
  const { writeJson } = await import('../io/json.js');
  const stdout = deps.globals.json ? { write: (text: string) => writeJson(deps.io, text.trimEnd()) } : deps.io.stdout;
  if (options.reset) {
    const { resetSandbox } = await import('../sandbox/cli.js');
    return resetSandbox({ url: sandboxUrl(deps, options), stdout, stderr: deps.io.stderr, json: deps.globals.json, fail });
  }
  const { runSandbox } = await import('../sandbox/cli.js');
  const { portGiven: _portGiven, reset: _reset, ...serving } = options;
  return runSandbox({
    ...serving,
    stdout,
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
