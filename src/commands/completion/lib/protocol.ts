// What a completion script sends to `crawl __complete` and what it reads back.
//
// Asked:  crawl __complete <count> :<word> ... :<word>
//   the words of the line after `crawl`, up to the cursor (the one being completed last, maybe
//   empty), each behind a colon, and how many there are. No word is empty or starts with a dash,
//   so nothing between the shell and crawl can drop one or take it for an option: PowerShell drops
//   a bare `--` when it calls npm's crawl.ps1, and older PowerShell drops empty arguments. A list
//   that does not add up to the count offers nothing rather than something wrong.
// The form of earlier scripts, `crawl __complete -- <word>...`, is still answered (a script saved
// to a file outlives an upgrade), with the answers those scripts read.
//
// Answered: one candidate a line, `value<TAB>description`; or one line `:files<TAB><own>` or
// `:commands<TAB><own>`: the shell's own file names or command names, for the part of the word
// after <own> (`--output=`, `name=@`), each given back with <own> in front.

export interface Request {
  words: string[];
  /** The form of earlier scripts: `:files` alone, and only where they can use it. */
  legacy: boolean;
}

const MARK = ':';

/** The words of a request, or undefined when the arguments are not one (nothing is offered). */
export function decodeRequest(args: readonly string[]): Request | undefined {
  const [count, ...rest] = args;
  if (count !== undefined && /^\d+$/.test(count) && rest.every((word) => word.startsWith(MARK))) {
    if (rest.length !== Number(count) || rest.length === 0) return undefined;
    return { words: rest.map((word) => word.slice(MARK.length)), legacy: false };
  }
  // Commander has taken the `--` off. PowerShell scripts of that form sent "" for an empty word.
  return { words: args.length === 0 ? [''] : args.map((word) => (word === '""' ? '' : word)), legacy: true };
}

/**
 * The arguments after `__complete` as the hidden command gets them from commander, for the two
 * forms the scripts send, which hold nothing commander would take for an option (every word behind
 * a colon, or `--` first, which commander takes off); undefined for anything else, which only the
 * program reads as it would (src/app/run-cli.ts).
 */
export function scriptArgs(args: readonly string[]): string[] | undefined {
  if (args[0] === '--') return args.slice(1);
  const [count, ...rest] = args;
  return count !== undefined && /^\d+$/.test(count) && rest.every((word) => word.startsWith(MARK)) ? [...args] : undefined;
}

export type ShellOwn = { kind: 'files' | 'commands'; own: string };

/** The line that hands the word to the shell's own completion; undefined when a legacy script cannot use it. */
export function shellOwnLine(request: Request, answer: ShellOwn): string | undefined {
  // The part comes from the line as typed: one that would break the answer's line is not handed on.
  // eslint-disable-next-line no-control-regex -- control characters are what it keeps out
  if (/[\u0000-\u001f\u007f]/.test(answer.own)) return undefined;
  if (!request.legacy) return `:${answer.kind}\t${answer.own}`;
  // Earlier scripts knew `:files` for a whole word or after --flag=, and nothing else.
  return answer.kind === 'files' && (answer.own === '' || /^-[^=]*=$/.test(answer.own)) ? ':files' : undefined;
}
