import { UsageError } from '../../errors.js';
import type { GlobalOptions } from '../../app/factory.js';

export const DEFAULT_TIMEOUT_SECONDS = 30;

/** Commander's merged options (optsWithGlobals) to the validated global options. */
export function parseGlobals(opts: Record<string, unknown>): GlobalOptions {
  return {
    json: opts.json === true,
    verbose: opts.verbose === true,
    noInput: opts.input === false,
    noColor: opts.color === false,
    timeoutMs: Math.round(parseSeconds(opts.timeout, '--timeout', DEFAULT_TIMEOUT_SECONDS) * 1000),
    allowHttp: opts.allowHttp === true,
    baseUrl: typeof opts.baseUrl === 'string' ? opts.baseUrl : undefined,
    profile: typeof opts.profile === 'string' ? opts.profile : undefined,
  };
}

/** A positive number of seconds (decimals allowed), at most a day. */
export function parseSeconds(value: unknown, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const text = String(value).trim();
  const n = Number(text);
  if (text === '' || !Number.isFinite(n) || n <= 0 || n > 86_400) {
    throw new UsageError(`invalid ${flag} "${String(value)}": give a number of seconds greater than 0`);
  }
  return n;
}

/**
 * --interval and --max-wait of the commands that poll a job. `waits`: whether this run polls at
 * all (`job watch` always; `pages` and `cancel` with --wait), since --max-wait means nothing else.
 */
export function parseWaitFlags(opts: Record<string, unknown>, waits: boolean): { intervalMs: number; maxWaitMs: number | undefined } {
  if (opts.maxWait !== undefined && !waits) throw new UsageError('--max-wait works with --wait only');
  return {
    intervalMs: Math.round(parseSeconds(opts.interval, '--interval', 2) * 1000),
    maxWaitMs: opts.maxWait === undefined ? undefined : Math.round(parseSeconds(opts.maxWait, '--max-wait', 0) * 1000),
  };
}

/** A whole number >= min for flags such as --limit and --port. */
export function parseInteger(value: unknown, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = String(value).trim();
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`invalid ${flag} "${String(value)}": give a whole number from ${min} to ${max}`);
  }
  return Number(text);
}
