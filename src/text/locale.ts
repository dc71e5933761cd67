// Numbers for people: grouped the way the user's locale groups them (`1,000,000`, `1.000.000`).
// Pure: the locale comes from the run's environment, never from the process.

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The locale numbers are written in, as a BCP 47 tag: LC_ALL, else LC_NUMERIC, else LANG
 * (`de_DE.UTF-8` is `de-DE`). The C and POSIX locales, none at all, or one this Node does not
 * know, give `en-US`: a shell that never set a locale still gets grouped digits on a terminal.
 */
export function numberLocale(env: Env): string {
  const raw = [env.LC_ALL, env.LC_NUMERIC, env.LANG].find((value) => value !== undefined && value !== '') ?? '';
  const tag = raw.replace(/[.@].*$/, '').replace(/_/g, '-');
  if (tag === '' || tag === 'C' || tag === 'POSIX') return 'en-US';
  try {
    return Intl.NumberFormat.supportedLocalesOf([tag])[0] ?? 'en-US';
  } catch {
    // Not a well-formed tag at all.
    return 'en-US';
  }
}

/** Formats a number with the locale's digit grouping; anything else is left to the caller. */
export function groupDigits(env: Env): (n: number) => string {
  const format = new Intl.NumberFormat(numberLocale(env), { maximumFractionDigits: 20 });
  return (n) => format.format(n);
}
