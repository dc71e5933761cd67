// Pure formatting for human and plain output. No I/O here, so it is unit-tested directly.

/**
 * `37/120 pages (31%)`; never shows 100% before the last page is in. `count` writes the numbers
 * (for people on a terminal, grouped as their locale does it: text/locale.ts).
 */
export function formatProgress(finished: unknown, total: unknown, count: (n: number) => string = String): string {
  const done = toCount(finished);
  const all = toCount(total);
  if (done === undefined && all === undefined) return 'unknown';
  if (all === undefined || all <= 0) return `${count(done ?? 0)}/${all === undefined ? '?' : count(all)} pages`;
  const d = done ?? 0;
  let percent = Math.round((d / all) * 100);
  if (percent >= 100 && d < all) percent = 99;
  return `${count(d)}/${count(all)} pages (${percent}%)`;
}

export function percentDone(finished: unknown, total: unknown): number {
  const d = toCount(finished) ?? 0;
  const t = toCount(total) ?? 0;
  if (t <= 0) return 0;
  return Math.min(1, Math.max(0, d / t));
}

/** A non-negative integer from a field the server may send as a number or a numeric string. */
export function toCount(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.floor(value);
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

const UNITS: ReadonlyArray<readonly [string, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** "3 minutes ago", "in 2 hours", "just now" (gh's style). */
export function relativeTime(iso: string, now: number): string | undefined {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return undefined;
  const seconds = Math.round((now - then) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return seconds >= 0 ? 'just now' : 'in less than a minute';
  for (const [unit, size] of UNITS) {
    if (abs >= size) {
      const n = Math.floor(abs / size);
      const label = `${n} ${unit}${n === 1 ? '' : 's'}`;
      return seconds >= 0 ? `${label} ago` : `in ${label}`;
    }
  }
  return undefined;
}

/** ISO 8601 with a relative hint for people: `2026-11-21T10:00:00Z (3 hours ago)`. */
export function humanTime(value: unknown, now: number): string {
  if (typeof value !== 'string' || value === '') return '';
  const hint = relativeTime(value, now);
  return hint === undefined ? value : `${value} (${hint})`;
}

/** RFC 3339 for plain output: the server's value when it parses, normalised to UTC. */
export function rfc3339(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  const t = Date.parse(value);
  if (Number.isNaN(t)) return value;
  return new Date(t).toISOString().replace('.000Z', 'Z');
}

/** `1:05`, `1:02:03`: elapsed time for the live watch line. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

export function progressBar(fraction: number, width: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}

/** A duration as people read it in messages, in seconds: `2 s`, `1.5 s`, `0.25 s`. */
export function formatSeconds(ms: number): string {
  return `${Math.round(ms / 10) / 100} s`;
}
