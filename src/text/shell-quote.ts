/**
 * A value as one shell word, for commands suggested in hints: left bare when it holds only
 * characters no POSIX shell treats specially, else single-quoted (a `'` inside becomes `'\''`),
 * so a path with a space, a `;` or a `$(...)` pastes as itself and runs nothing.
 */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
