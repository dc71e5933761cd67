// Numbers for people: grouped the way the user's locale groups them (`1,000,000`, `1.000.000`).
// Pure: the locale comes from the run's environment, never from the process.

type Env = Readonly<Record<string, string | undefined>>;

let system: string | undefined;

/**
 * The system's own locale, as Intl has it from the OS (Windows sets no LANG: its region settings).
 * Read once: it is the process's, and asking Intl makes a formatter each time.
 */
export function systemLocale(): string {
  system ??= new Intl.NumberFormat().resolvedOptions().locale;
  return system;
}

/**
 * The locale numbers are written in, as a BCP 47 tag: LC_ALL, else LC_NUMERIC, else LANG
 * (`de_DE.UTF-8` is `de-DE`); when none is set, the system's locale (`system`: what Intl reports,
 * which on Windows follows the region settings). The C and POSIX locales, or one this Node does
 * not know, give `en-US`: a shell with LANG=C still gets grouped digits on a terminal.
 */
export function numberLocale(env: Env, system: string = systemLocale()): string {
  const raw = [env.LC_ALL, env.LC_NUMERIC, env.LANG].find((value) => value !== undefined && value !== '') ?? '';
  const tag = raw === '' ? system : raw.replace(/[.@].*$/, '').replace(/_/g, '-');
  if (tag === '' || tag === 'C' || tag === 'POSIX') return 'en-US';
  try {
    return Intl.NumberFormat.supportedLocalesOf([tag])[0] ?? 'en-US';
  } catch {
    // Not a well-formed tag at all.
    return 'en-US';
  }
}

/**
 * Formats a number with the locale's digit grouping; anything else is left to the caller. The
 * locale is looked up, and the formatter made (ICU's data loaded), at the first number formatted:
 * a command that prints none (JSON, plain rows) pays nothing for it.
 */
export function groupDigits(env: Env, system?: string): (n: number) => string {
  let format: Intl.NumberFormat | undefined;
  return (n) => {
    format ??= new Intl.NumberFormat(numberLocale(env, system), { maximumFractionDigits: 20 });
    return format.format(n);
  };
}
