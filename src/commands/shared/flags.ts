// Flags more than one command takes, as typed commander Options: each parses and checks its value
// (a UsageError, exit 2, with today's wording) and gives the command a number, not a string.
import { Option } from '@commander-js/extra-typings';
import { UsageError } from '../../errors.js';

export const DEFAULT_TIMEOUT_SECONDS = 30;
export const DEFAULT_INTERVAL_SECONDS = 2;

/** A positive number of seconds (decimals allowed), at most a day, as milliseconds. */
export function parseSecondsMs(flag: string): (value: string) => number {
  return (value) => {
    const text = value.trim();
    const n = Number(text);
    if (text === '' || !Number.isFinite(n) || n <= 0 || n > 86_400) {
      throw new UsageError(`invalid ${flag} "${value}": give a number of seconds greater than 0`);
    }
    return Math.round(n * 1000);
  };
}

/** A whole number from min to max, for flags such as --limit and --port. */
export function parseInteger(flag: string, min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const text = value.trim();
    if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
      throw new UsageError(`invalid ${flag} "${value}": give a whole number from ${min} to ${max}`);
    }
    return Number(text);
  };
}

export function timeoutOption() {
  return new Option('--timeout <seconds>', 'per-request timeout in seconds')
    .argParser(parseSecondsMs('--timeout'))
    .default(DEFAULT_TIMEOUT_SECONDS * 1000, String(DEFAULT_TIMEOUT_SECONDS));
}

export function intervalOption(description = 'seconds between polls') {
  return new Option('--interval <seconds>', description)
    .argParser(parseSecondsMs('--interval'))
    .default(DEFAULT_INTERVAL_SECONDS * 1000, String(DEFAULT_INTERVAL_SECONDS));
}

export function maxWaitOption(description = 'give up (exit 7) after this many seconds') {
  return new Option('--max-wait <seconds>', description).argParser(parseSecondsMs('--max-wait'));
}

/** --max-wait means something only to a command that polls (`pages` and `cancel` with --wait). */
export function checkMaxWait(maxWaitMs: number | undefined, waits: boolean): number | undefined {
  if (maxWaitMs !== undefined && !waits) throw new UsageError('--max-wait works with --wait only');
  return maxWaitMs;
}

export function yesOption(description = 'do not ask for confirmation') {
  return new Option('--yes', description);
}
