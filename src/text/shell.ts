// Commands that crawl suggests (in hints and messages) are copied into a shell by people. Any
// value spliced into one may come from a server (a key id, a job id) or be odd on its own (a
// path with spaces): each is quoted for POSIX shells, so pasting runs exactly the command shown.
// On Windows no quoting means the same in cmd and in PowerShell (cmd passes '...' on literally and
// still runs `x&calc` inside double quotes): a word goes into a hint there only when it is safe
// bare in both, or in double quotes when it holds nothing either reads there but letters (of any
// script: `"müller"`) and, in a program's words, a few more (a space); anything else is named
// (`<id>`) for the user to fill in, never spliced.
// Where a hint differs by shell (a file on stdin, setting a variable, removing a file), it follows
// the shell in use, not only the system: Git Bash and MSYS2 are POSIX shells on Windows.

/**
 * How a hint's words are written: for POSIX shells; for cmd and PowerShell; or, where the shell
 * cannot be told, in words that mean the same in all three, and in both forms where a hint differs.
 */
export type Quoting = 'posix' | 'windows' | 'both';

/**
 * The shells that may read a hint. Off Windows, POSIX ones. On Windows: under Git Bash or MSYS2
 * (MSYSTEM set), their bash, where `$env:X` expands to nothing and MSYS turns `/c` into a path;
 * with no MSYSTEM but a POSIX shell or terminal named (SHELL, TERM: Cygwin's mintty, an ssh
 * session), it may be bash or cmd or PowerShell; else cmd or PowerShell, whose consoles set neither.
 */
export function quotingFor(platform: { os: string }, env: Readonly<Record<string, string | undefined>>): Quoting {
  if (platform.os !== 'win32') return 'posix';
  const set = (name: string): boolean => Object.entries(env).some(([key, value]) => key.toUpperCase() === name && value !== undefined && value !== '');
  if (set('MSYSTEM')) return 'posix';
  return set('SHELL') || set('TERM') ? 'both' : 'windows';
}

/** The shells whose forms a hint gives, in the order it gives them. */
export function shellsOf(quoting: Quoting): Array<'posix' | 'windows'> {
  return quoting === 'both' ? ['posix', 'windows'] : [quoting];
}

/** What a form is labelled with when a hint gives both. */
const SHELL_NAMES = { posix: 'bash', windows: 'PowerShell' } as const;

/** What differs by shell, written for each shell a hint gives: named (`shell`) when there are several. */
export function shellForms(
  quoting: Quoting,
  form: (shell: 'posix' | 'windows') => string,
  names: { posix?: string; windows?: string } = {},
): Array<{ text: string; shell?: string }> {
  const shells = shellsOf(quoting);
  return shells.map((shell) => ({ text: form(shell), ...(shells.length > 1 ? { shell: names[shell] ?? SHELL_NAMES[shell] } : {}) }));
}

/**
 * The same as one phrase, each form in backticks: the one form, or, for `both`, each with the
 * shells it is for (`\`rm x\` in bash, \`cmd /c del x\` in cmd or PowerShell`).
 */
export function eachShell(quoting: Quoting, form: (shell: 'posix' | 'windows') => string, names: { posix?: string; windows?: string } = {}): string {
  return shellForms(quoting, form, names)
    .map(({ text, shell }) => (shell === undefined ? `\`${text}\`` : `\`${text}\` in ${shell}`))
    .join(', ');
}

/**
 * Characters that neither cmd nor PowerShell treats specially in a bare word, nor a .cmd shim's
 * argument parsing: no `%`, `^`, `&`, `|`, `<`, `>`, quotes, `,`, `;`, `=`, `@`, `$`, backtick,
 * braces, brackets, parentheses or spaces.
 */
const SAFE_WINDOWS_WORD = /^[A-Za-z0-9_.:\\/+-]+$/;

/** `value` as a bare word safe in cmd and PowerShell, or undefined when it is not one. */
export function windowsWord(value: string): string | undefined {
  return SAFE_WINDOWS_WORD.test(value) ? value : undefined;
}

/** `value` as a bare word safe in cmd, PowerShell and POSIX shells alike (no `\\` for bash), or undefined. */
function everyShellWord(value: string): string | undefined {
  return SAFE_WINDOWS_WORD.test(value) && SAFE_WORD.test(value) ? value : undefined;
}

/**
 * Letters, combining marks and digits of any script (`ü`, `é`, `ñ`, `ø`, `日本`): literal inside
 * double quotes in cmd, PowerShell and bash alike. Punctuation beyond ASCII is not among them:
 * PowerShell reads the typographic quotes (U+2018 to U+201E) as quotes and the dashes U+2013,
 * U+2014 and U+2015 as `-`, so a word holding one stays named.
 */
const LETTERS_OF_ANY_SCRIPT = (): RegExp => (lettersOfAnyScript ??= /[\p{L}\p{M}\p{N}]/gu);
// Made on first use: V8 builds a Unicode property class when the expression is created, and most
// runs that load this module (help among them) quote no word.
let lettersOfAnyScript: RegExp | undefined;

/**
 * `word` in double quotes, for cmd and PowerShell (and bash, `both`), when each of its characters
 * is literal there: a letter of any script, or one `ascii` accepts (given all the characters that
 * are not letters). Never a word ending in `\` (`\"` would escape the closing quote for the program
 * reading its command line) nor, for bash, one holding `\\`, which bash reads as `\`.
 */
function doubleQuoted(word: string, ascii: (others: string) => boolean, quoting: Quoting): string | undefined {
  const others = word.replace(LETTERS_OF_ANY_SCRIPT(), '');
  if (word === '' || (others !== '' && !ascii(others)) || word.endsWith('\\') || (quoting === 'both' && word.includes('\\\\'))) return undefined;
  return `"${word}"`;
}

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
  /** What an operand is, for the placeholder that stands for one not safe to splice (Windows): `id`. */
  operandName?: string;
}

/**
 * A command line, every word quoted as needed: `command operands flags`. An operand that starts
 * with `-` would be read as an option even quoted (an id `--force`): then the flags go first and
 * `--` ends the options before the operands.
 */
export function commandLine({ command, operands = [], flags = [], operandName = 'id' }: CommandParts, quoting: Quoting = 'posix'): string {
  const dashed = operands.some((o) => o.startsWith('-'));
  if (quoting !== 'posix') {
    // A value that is not spliced is named by what it is: an operand by `operandName`, a flag's
    // value by its flag (`<profile>`). One that only letters beyond ASCII keep from being bare
    // (`müller`, `José`) is spliced in double quotes. An operand that starts with `-` is named too:
    // `--` does not survive PowerShell's call of npm's crawl.ps1 shim, so nothing would keep it an operand.
    const bare = quoting === 'both' ? everyShellWord : windowsWord;
    const spliced = (w: string): string | undefined => bare(w) ?? doubleQuoted(w, (others) => bare(others) !== undefined, quoting);
    const named = (words: readonly string[], name: (i: number) => string): string[] => words.map((w, i) => spliced(w) ?? `<${name(i)}>`);
    const ops = operands.map((o) => (o.startsWith('-') ? undefined : spliced(o)) ?? `<${operandName}>`);
    const head = named(command, (i) => valueName(command, i));
    const tail = named(flags, (i) => valueName(flags, i));
    return [...head, ...ops, ...tail].join(' ');
  }
  const words = dashed ? [...command, ...flags, '--', ...operands] : [...command, ...operands, ...flags];
  return words.map(shellQuote).join(' ');
}

/**
 * ASCII characters that mean nothing inside double quotes to cmd or PowerShell, nor, once
 * PowerShell has taken the quotes off and passes the word on (quoted again only if it holds a
 * space), to cmd or a .cmd shim reading it bare: no `"`, `%` (cmd expands `%VAR%` even in quotes),
 * `!`, `$` or backtick (PowerShell expands them in double quotes), no `&|<>^()` or `,;=` (cmd would
 * read them in the bare word PowerShell hands on), no `*?`. Letters of any script join them
 * (LETTERS_OF_ANY_SCRIPT); typographic quotes and dashes do not.
 */
const QUOTABLE_WINDOWS_WORD = /^[A-Za-z0-9_.:\\/+\- '#~@[\]{}]+$/;

/**
 * A program's words (crawl as it was started: `node <path of bin/crawl.js>`, a command that
 * removes a file) as typed in the user's shells. POSIX: single quotes where needed. cmd and
 * PowerShell: a word safe bare stays bare; one that double quotes keep literal in both shells (a
 * path with a space, say) is written in double quotes; anything else is named by `placeholder`
 * (`<path>`) for the user to fill in, never spliced (see the top of this file). A word ending in
 * `\` is named too: `\"` would escape the closing quote for the program that reads its command
 * line. The first word is the program, always a plain name here (`node`, `cmd`): PowerShell would
 * take a quoted one for a string, not a command. `both`: the same, for bash too (a word with a
 * backslash goes in double quotes, and one with `\\` in it, which bash reads as `\`, is named).
 */
export function programWords(words: readonly string[], quoting: Quoting = 'posix', placeholder: (i: number) => string = () => 'value'): string {
  if (quoting === 'posix') return words.map(shellQuote).join(' ');
  const bare = quoting === 'both' ? everyShellWord : windowsWord;
  const quotable = (others: string): boolean => QUOTABLE_WINDOWS_WORD.test(others);
  return words.map((word, i) => bare(word) ?? doubleQuoted(word, quotable, quoting) ?? `<${placeholder(i)}>`).join(' ');
}

/** What the word at `i` is, for a placeholder: the value of the flag before it, or a value. */
function valueName(words: readonly string[], i: number): string {
  const before = words[i - 1];
  return before !== undefined && before.startsWith('--') ? before.slice(2) : 'value';
}

/**
 * The global flags a suggested command repeats, so that pasted elsewhere it acts on the same
 * profile and service as the run that suggested it: `--profile` for any profile but the default
 * (given as a flag or by CRAWL_PROFILE), and a `--base-url` given as a flag.
 */
export function suggestionFlags(profile: string | undefined, baseUrlFlag: string | undefined): string[] {
  const flags: string[] = [];
  if (profile !== undefined && profile !== '' && profile !== 'default') flags.push('--profile', profile);
  const baseUrl = baseUrlFlag === undefined ? undefined : repeatableBaseUrl(baseUrlFlag);
  if (baseUrl !== undefined) flags.push('--base-url', baseUrl);
  return flags;
}

/**
 * A --base-url as a hint may repeat it: an http(s) URL without the user and password it may carry
 * (a key, pasted there; such a URL is refused, and the hint's command is the one that stores the
 * key). Anything else is not repeated: it is what the user has to mend, and may hold anything.
 */
function repeatableBaseUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username === '' && url.password === '') return value;
  url.username = '';
  url.password = '';
  return url.href;
}

/**
 * `text` with `flags` put after `crawl` in every command it quotes in backticks (`crawl auth
 * login`), unless that command already begins with them: hints written where the
 * profile is not known (the HTTP layer's "store a new key with `crawl auth login`") then name it.
 */
export function withSuggestionFlags(text: string, flags: readonly string[], quoting: Quoting = 'posix'): string {
  if (flags.length === 0) return text;
  const words = quoting === 'posix' ? flags.map(shellQuote).join(' ') : commandLine({ command: flags }, quoting);
  return text.replace(/`crawl(?= |`)(?! --profile | --base-url | --allow-http )/g, `\`crawl ${words}`);
}

/**
 * A command that reads a file on its standard input, as typed in the user's shell, in backticks:
 * `crawl … < keyfile` for POSIX shells (and cmd); PowerShell rejects `<`, and pipes instead
 * (`Get-Content keyfile | crawl …`, which cmd's `type` also matches). `both`: each, named.
 */
export function withFileOnStdin(command: string, file: string, quoting: Quoting = 'posix'): string {
  return eachShell(quoting, (shell) => (shell === 'windows' ? `Get-Content ${file} | ${command}` : `${command} < ${file}`), { posix: 'bash or cmd' });
}

/**
 * The line that sets environment variables for the commands typed after it in the same shell:
 * `export NAME=value ...` for POSIX shells; for Windows, PowerShell's `$env:NAME = 'value'`
 * (single quotes: nothing in them expands), the shell its hints are written for
 * (withFileOnStdin above), since no one line sets a variable in both cmd and PowerShell.
 * `both` has no one line: ask shellsOf() for the shells and write a line for each.
 */
export function environmentLine(variables: ReadonlyArray<readonly [name: string, value: string]>, shell: 'posix' | 'windows' = 'posix'): string {
  if (shell === 'windows') return variables.map(([name, value]) => `$env:${name} = '${value.replace(/['\u2018\u2019\u201A\u201B]/g, (q) => q + q)}'`).join('; ');
  return `export ${variables.map(([name, value]) => `${name}=${shellQuote(value)}`).join(' ')}`;
}
