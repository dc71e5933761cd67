// When and how long to wait before trying a request again. Pure, so it is unit-tested.

export const RETRY_STATUSES = new Set([429, 502, 503, 504]);
export const MAX_ATTEMPTS = 4;
const BASE_DELAY_MS = 250;
const MAX_BACKOFF_MS = 8_000;
/** A Retry-After longer than this is not waited out: the command fails with exit 6 and says when to retry. */
export const MAX_RETRY_AFTER_MS = 30_000;

/** Exponential backoff with jitter: attempt 1 waits 125-250 ms, attempt 2 250-500 ms, ... */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Retry-After as delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const header = Array.isArray(value) ? value[0] : value;
  if (header === undefined) return undefined;
  const text = header.trim();
  // Hundreds of digits are still "a very long time", not Infinity: the wait must stay a number.
  if (/^\d+(\.\d+)?$/.test(text)) return Math.min(Number.MAX_SAFE_INTEGER, Math.round(Number(text) * 1000));
  // Date.parse also takes "-1" or "7" as years; an HTTP date always names its month.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
