// Flags more than one command takes, as typed commander Options: each parses and checks its value
// (a UsageError, exit 2, with today's wording) and gives the command a number, not a string.
import { Option } from '@commander-js/extra-typings';
import { UsageError } from '../../errors.js';
import { DURATION_UNITS, parseSpan, type Span } from '../../text/duration.js';
import { DEFAULT_TIMEOUT_SECONDS } from './global-defaults.js';

export const DEFAULT_INTERVAL_SECONDS = 2;
/** Polls closer together than this only load the service: a typo (`--interval 0.01`) must not hammer it. */
export const MIN_INTERVAL_SECONDS = 0.5;
const DAY_SECONDS = 86_400;

/**
 * A number of seconds (decimals allowed) as milliseconds: more than 0, or at least `minSeconds`,
 * and at most a day. The message names the range in words.
 */
export function parseSecondsMs(flag: string, minSeconds?: number, why?: string): (value: string) => number {
  return (value) => {
    const text = value.trim();
    const n = Number(text);
    const inRange = (seconds: number): boolean => (minSeconds === undefined ? seconds > 0 : seconds >= minSeconds) && seconds <= DAY_SECONDS;
    if (text === '' || !Number.isFinite(n) || !inRange(n)) {
      const range = minSeconds === undefined ? `more than 0 and at most ${DAY_SECONDS} (a day)` : `from ${minSeconds} to ${DAY_SECONDS} (a day)`;
      // A value with a unit (`10s`, `1h`, as other tools take it) is not a number at all, whatever
      // `why` says of small ones: said how to write it in seconds (durations stay unaccepted).
      const unit = withUnit(text);
      if (unit !== undefined) {
        const hint = unit.seconds !== undefined && inRange(unit.seconds) ? `write ${flag} ${unit.seconds}` : undefined;
        throw new UsageError(`invalid ${flag} "${value}": give a number of seconds without a unit, ${range}`, hint);
      }
      const tooSmall = text !== '' && Number.isFinite(n) && n <= DAY_SECONDS;
      throw new UsageError(`invalid ${flag} "${value}": give a number of seconds, ${range}${why !== undefined && tooSmall ? `; ${why}` : ''}`);
    }
    return Math.round(n * 1000);
  };
}

/** The units a value of seconds is often written with elsewhere, in seconds. */
const UNIT_SECONDS: ReadonlyMap<string, number> = new Map([
  ...['ms', 'msec'].map((u) => [u, 0.001] as const),
  ...['s', 'sec', 'secs', 'second', 'seconds'].map((u) => [u, 1] as const),
  ...['m', 'min', 'mins', 'minute', 'minutes'].map((u) => [u, 60] as const),
  ...['h', 'hr', 'hrs', 'hour', 'hours'].map((u) => [u, 3600] as const),
  ...['d', 'day', 'days'].map((u) => [u, DAY_SECONDS] as const),
]);

/** A number followed by a unit (`10s`, `1.5 h`, `2min`): the seconds it names when the unit is one we know. */
function withUnit(text: string): { seconds: number | undefined } | undefined {
  const match = /^(\d+(?:\.\d+)?|\.\d+)\s*([a-z]+)$/i.exec(text);
  if (!match) return undefined;
  const factor = UNIT_SECONDS.get((match[2] ?? '').toLowerCase());
  return { seconds: factor === undefined ? undefined : Number((Number(match[1]) * factor).toPrecision(12)) };
}

/**
 * A whole number of at least `min`, for flags such as --limit and --port; with a `max`, at most
 * that. Without one, digits past what a number holds exactly mean "as many as there are".
 */
export function parseInteger(flag: string, min: number, max?: number): (value: string) => number {
  return (value) => {
    const text = value.trim();
    const n = /^\d+$/.test(text) ? Math.min(Number(text), Number.MAX_SAFE_INTEGER) : NaN;
    if (Number.isNaN(n) || n < min || (max !== undefined && n > max)) {
      const range = max === undefined ? `${min} or more` : `from ${min} to ${max}`;
      throw new UsageError(`invalid ${flag} "${value}": give a whole number, ${range}`);
    }
    return n;
  };
}

/**
 * A duration as `keys prune --unused-for` and `keys rotate --if-older-than` take it (30d, 6mo, 1y,
 * 12h, 1d12h). A bare `m` is refused as ambiguous, and a duration of 0 with `zero`: what it
 * would do, said in the flag's own terms.
 */
export function parseDuration(flag: string, zero: string): (value: string) => Span {
  return (value) => {
    const parsed = parseSpan(value);
    if ('span' in parsed) return parsed.span;
    if (parsed.problem === 'ambiguous-m') {
      const count = /(\d+)m(?![a-z])/i.exec(value)?.[1] ?? '6';
      throw new UsageError(`ambiguous ${flag} "${value}": m could be minutes or months`, `write ${count}min for minutes or ${count}mo for months`);
    }
    if (parsed.problem === 'zero') throw new UsageError(`invalid ${flag} "${value}": a duration of 0 ${zero}`, `give a duration longer than 0, such as 30d, 6mo, 1y, 12h or 1d12h`);
    throw new UsageError(`invalid ${flag} "${value}": give a duration such as 30d, 6mo, 1y, 12h or 1d12h`, `units: ${DURATION_UNITS}`);
  };
}

export function timeoutOption() {
  return new Option('--timeout <seconds>', 'per-request timeout in seconds')
    .argParser(parseSecondsMs('--timeout'))
    .default(DEFAULT_TIMEOUT_SECONDS * 1000, String(DEFAULT_TIMEOUT_SECONDS));
}

export function intervalOption(description = 'seconds between polls') {
  return new Option('--interval <seconds>', `${description} (at least ${MIN_INTERVAL_SECONDS})`)
    .argParser(parseSecondsMs('--interval', MIN_INTERVAL_SECONDS, 'polling more often only loads the service'))
    .default(DEFAULT_INTERVAL_SECONDS * 1000, String(DEFAULT_INTERVAL_SECONDS));
}

export function maxWaitOption(withWait = false) {
  // A job never read is not known to be unfinished: the code is then the last error's (api/watch.ts).
  const description = "give up after this many seconds (exit 7; a job never read: the last error's code)";
  return new Option('--max-wait <seconds>', withWait ? `with --wait: ${description}` : description).argParser(parseSecondsMs('--max-wait'));
}

/** --max-wait means something only to a command that polls (`pages` and `cancel` with --wait). */
export function checkMaxWait(maxWaitMs: number | undefined, waits: boolean): number | undefined {
  if (maxWaitMs !== undefined && !waits) throw new UsageError('--max-wait works with --wait only');
  return maxWaitMs;
}

export function yesOption(description = 'do not ask for confirmation') {
  return new Option('--yes', description);
}
