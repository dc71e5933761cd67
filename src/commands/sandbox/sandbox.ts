import { Command, Option } from '@commander-js/extra-typings';
import { UsageError } from '../../errors.js';
import { parseInteger } from '../shared/flags.js';
import { withExamples, withNotes } from '../shared/examples.js';
import type { SandboxOptions } from './lib/sandbox.js';

export type { SandboxOptions };

export function command(runF: (options: SandboxOptions) => Promise<void>) {
  const sandbox = new Command('sandbox')
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
      });
  withNotes(sandbox, 'The bootstrap key', [
    'The sandbox prints a key that works with it. On a given port it is the same key at every start (kept in $XDG_STATE_HOME/crawl/sandbox-keys.json, else ~/.local/state/crawl/), so `crawl auth login` against the sandbox keeps working after a restart; with --port 0 it is new each time.',
    'CRAWL_SANDBOX_KEY=<key> makes the sandbox use that key instead (crk_ and letters or digits), the same wherever and however it starts.',
  ]);
  return withExamples(
    sandbox,
    [
      ['a sandbox on port 8787, every request logged', 'crawl sandbox --log'],
      ['try a script against a flaky service', 'crawl sandbox --port 0 --fail-every 3 --latency 200'],
      ['put the demo jobs back, in a sandbox that runs', 'crawl sandbox --reset'],
      ['a key of your choosing, in a script that starts its own sandbox', 'CRAWL_SANDBOX_KEY=crk_TestKeyForMyScript0123456789 crawl sandbox --port 8799'],
    ],
  );
}
