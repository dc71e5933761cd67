import type { Context } from '../app/factory.js';
import { parseInteger } from './shared/flags.js';

/** `crawl sandbox`: the local stand-in for the service (see src/sandbox). Runs until Ctrl-C. */
export async function handler(ctx: Context, _args: string[], opts: Record<string, unknown>): Promise<number> {
  const optional = (flag: string, value: unknown, min: number): number | undefined =>
    value === undefined ? undefined : parseInteger(value, flag, min);
  const options = {
    port: parseInteger(opts.port, '--port', 0, 65_535),
    latency: optional('--latency', opts.latency, 0),
    failEvery: optional('--fail-every', opts.failEvery, 1),
    rateLimitEvery: optional('--rate-limit-every', opts.rateLimitEvery, 1),
    dropEvery: optional('--drop-every', opts.dropEvery, 1),
  };
  const { runSandbox } = await import('../sandbox/cli.js');
  return runSandbox({ ...options, stdout: ctx.io.stdout, stderr: ctx.io.stderr });
}
