// Durations as people write them on a command line: `30d`, `12h`, `1w`, `1d12h`, `90m`, `45s`.

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const WHOLE = /^(?:\d+[smhdw])+$/;
const PART = /(\d+)([smhdw])/g;

/** Milliseconds, or undefined when the text is not one or more number-unit pairs adding up to more than 0. */
export function parseDuration(text: string): number | undefined {
  const compact = text.trim().toLowerCase();
  if (!WHOLE.test(compact)) return undefined;
  let ms = 0;
  for (const [, count, unit] of compact.matchAll(PART)) ms += Number(count) * (UNIT_MS[unit ?? ''] ?? 0);
  return ms > 0 && Number.isSafeInteger(ms) ? ms : undefined;
}
