import { Command, Option } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { CrawlError } from '../errors.js';
import { parseInteger } from './shared/flags.js';

export interface SandboxOptions {
  port: number;
  latency: number | undefined;
  failEvery: number | undefined;
  rateLimitEvery: number | undefined;
  dropEvery: number | undefined;
}

export function command(runF: (options: SandboxOptions) => Promise<void>) {
  return new Command('sandbox')
    .description('run a local server that behaves like the service')
    .addOption(new Option('--port <n>', 'port on 127.0.0.1 (0 picks a free one)').argParser(parseInteger('--port', 0, 65_535)).default(8787, '8787'))
    .addOption(new Option('--latency <ms>', 'delay every response by this many milliseconds').argParser(parseInteger('--latency', 0, 600_000)))
    .addOption(new Option('--fail-every <n>', 'answer every nth API request with 503').argParser(parseInteger('--fail-every', 1)))
    .addOption(new Option('--rate-limit-every <n>', 'answer every nth API request with 429 and Retry-After: 1').argParser(parseInteger('--rate-limit-every', 1)))
    .addOption(new Option('--drop-every <n>', 'drop the connection of every nth API request').argParser(parseInteger('--drop-every', 1)))
    .action((flags) =>
      runF({ port: flags.port, latency: flags.latency, failEvery: flags.failEvery, rateLimitEvery: flags.rateLimitEvery, dropEvery: flags.dropEvery }),
    );
}

/** `crawl sandbox`: the local stand-in for the service (see src/sandbox). Runs until Ctrl-C. */
export async function run(deps: Deps, options: SandboxOptions): Promise<number> {
  const { runSandbox } = await import('../sandbox/cli.js');
  return runSandbox({
    ...options,
    stdout: deps.io.stdout,
    stderr: deps.io.stderr,
    json: deps.globals.json,
    fail: (message, exitCode) => deps.report(new CrawlError(message, exitCode)),
    key: deps.env.CRAWL_SANDBOX_KEY || undefined,
    stop: deps.signal,
  });
}
