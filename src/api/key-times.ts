// The times of a listed key (lastUsedAt, createdAt), read strictly: the interface gives ISO 8601
// UTC timestamps, and a value that is not one is never taken for a time.

/** A time from the key list: ms since the epoch; `never` for null or ""; `unreadable` for anything else. */
export function listedTime(value: unknown): number | 'never' | 'unreadable' {
  if (value === null || value === '') return 'never';
  if (typeof value !== 'string') return 'unreadable';
  // ISO 8601 with a date and a time, as the interface gives them; Date.parse alone takes far more.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) return 'unreadable';
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? 'unreadable' : ms;
}

/** A listed value for a message: `missing`, or its JSON, cut short. */
export function describeListed(value: unknown): string {
  if (value === undefined) return 'missing';
  return JSON.stringify(value)?.slice(0, 40) ?? String(value);
}
