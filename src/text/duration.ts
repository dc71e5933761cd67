// Durations as people write them on a command line: `30d`, `12h`, `1w`, `6mo`, `1y`, `1d12h`, `90min`, `45s`.
// A bare `m` is refused: people mean minutes (as in `sleep`) or months (as in a calendar) about
// equally, and the two are 43,200 times apart.

/** The units, as `--help` lists them. */
export const DURATION_UNITS = 's (seconds), min (minutes), h, d, w, mo (months), y (years)';

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const UNIT_MONTHS: Readonly<Record<string, number>> = { mo: 1, y: 12 };
// Longest first, so that `min` and `mo` are read before a bare `m` could be.
const WHOLE = /^(?:\d+(?:min|mo|[smhdwy]))+$/;
const PART = /(\d+)(min|mo|[smhdwy])/g;

/** A span of time: calendar months (a month is not a fixed number of days) plus milliseconds. */
export interface Span {
  months: number;
  ms: number;
}

/** `zero`: well formed, but no time at all (`0s`, `0d0h`). */
export type SpanParse = { span: Span } | { problem: 'ambiguous-m' | 'zero' | 'invalid' };

/** One or more number-unit pairs adding up to more than 0; `m` alone is `ambiguous-m`. */
export function parseSpan(text: string): SpanParse {
  const compact = text.trim().toLowerCase();
  if (!WHOLE.test(compact)) return { problem: 'invalid' };
  let months = 0;
  let ms = 0;
  for (const [, count, unit = ''] of compact.matchAll(PART)) {
    if (unit === 'm') return { problem: 'ambiguous-m' };
    if (unit in UNIT_MONTHS) months += Number(count) * (UNIT_MONTHS[unit] ?? 0);
    else ms += Number(count) * (UNIT_MS[unit] ?? 0);
  }
  if (!Number.isSafeInteger(ms) || !Number.isSafeInteger(months) || months > 12 * 10_000) return { problem: 'invalid' };
  return months > 0 || ms > 0 ? { span: { months, ms } } : { problem: 'zero' };
}

/**
 * The moment `span` before `now`: months are counted on the calendar in UTC (6 months before
 * 27 November is 27 May; before 31 March, 1 month is the last of February), then the rest.
 */
export function spanBefore(now: number, span: Span): number {
  let at = now;
  if (span.months > 0) {
    const date = new Date(now);
    const monthIndex = date.getUTCFullYear() * 12 + date.getUTCMonth() - span.months;
    const year = Math.floor(monthIndex / 12);
    const month = monthIndex - year * 12;
    const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
    const moved = new Date(now);
    moved.setUTCFullYear(year, month, Math.min(date.getUTCDate(), lastDay));
    at = moved.getTime();
  }
  return at - span.ms;
}

/** A cut-off for people: the date (UTC), with the time when the span is not whole days. */
export function describeCutoff(at: number, span: Span): string {
  const iso = new Date(at).toISOString();
  return span.ms % 86_400_000 === 0 ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
