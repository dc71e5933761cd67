// Commands that crawl suggests (in hints and messages) are copied into a shell by people. Any
// value spliced into one may come from a server (a key id, a job id) or be odd on its own (a
// path with spaces): each is quoted for POSIX shells, so pasting runs exactly the command shown.

/** Characters no POSIX shell treats specially in an unquoted word. */
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * One shell word that stands for `value` exactly: left as it is when nothing in it is special,
 * otherwise in single quotes, inside which only the single quote itself needs care (`'\''`).
 * A leading `=` is quoted too: zsh expands `=cmd` to a path.
 */
export function shellQuote(value: string): string {
  if (SAFE_WORD.test(value) && !value.startsWith('=')) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export interface CommandParts {
  /** The program and its subcommands, with any global flags: `crawl --profile x keys revoke`. */
  command: readonly string[];
  /** Values that are arguments, not options: ids, names. */
  operands?: readonly string[];
  /** Options, each word as it is: `--yes`, `--output-file`, `path`. */
  flags?: readonly string[];
}

/**
 * A command line, every word quoted as needed: `command operands flags`. An operand that starts
 * with `-` would be read as an option even quoted (an id `--force`): then the flags go first and
 * `--` ends the options before the operands.
 */
export function commandLine({ command, operands = [], flags = [] }: CommandParts): string {
  const dashed = operands.some((o) => o.startsWith('-'));
  const words = dashed ? [...command, ...flags, '--', ...operands] : [...command, ...operands, ...flags];
  return words.map(shellQuote).join(' ');
}
