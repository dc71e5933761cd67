// How a key is shown to people: recognisable, never usable. Pure.

/**
 * A key shown to people: enough to recognise it, never enough to use it.
 * `crk_abcd1234…` keeps the first 8 characters (the service's prefix part) and hides the rest.
 */
export function maskKey(key: string): string {
  if (key.length <= 8) return '*'.repeat(key.length);
  const visible = Math.min(12, Math.floor(key.length / 3));
  return `${key.slice(0, visible)}…${'*'.repeat(4)}`;
}
