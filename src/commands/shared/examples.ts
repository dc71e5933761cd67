// The "Examples:" section of a command's help, as gh shows it, fitted to the help's width: each
// comment wrapped, each command broken at the spaces between its words (never inside quotes) with
// a trailing `\`, so what is shown can still be pasted into a shell. Also a section of prose
// before it (withNotes), wrapped to the same width.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { wrapWords } from '../../text/wrap.js';

/** A comment saying what the command line does, and the line itself (without the `$ `). */
export type Example = readonly [comment: string, line: string];

export function withExamples<C extends CommandUnknownOpts>(command: C, examples: readonly Example[]): C {
  command.on('afterHelp', (context: { write(text: string): void; error: boolean }) => {
    context.write(formatExamples(examples, helpWidth(command, context.error)));
  });
  return command;
}

/**
 * A section of prose after the options (`Fields:`, as gh's help explains its fields), each
 * paragraph wrapped to the help's width. Given before withExamples, it comes before the examples.
 */
export function withNotes<C extends CommandUnknownOpts>(command: C, heading: string, paragraphs: readonly string[]): C {
  command.on('afterHelp', (context: { write(text: string): void; error: boolean }) => {
    const width = helpWidth(command, context.error);
    const body = paragraphs.map((paragraph) => wrapWords(paragraph, Math.max(20, width - 2)).map((line) => `  ${line}`).join('\n'));
    context.write(`\n${heading}:\n${body.join('\n\n')}\n`);
  });
  return command;
}

/** The width the rest of the help was wrapped to (src/app/program.ts configures it). */
function helpWidth(command: CommandUnknownOpts, error: boolean): number {
  const output = command.configureOutput();
  return (error ? output.getErrHelpWidth?.() : output.getOutHelpWidth?.()) ?? 80;
}

export function formatExamples(examples: readonly Example[], width: number): string {
  const lines = ['', 'Examples:'];
  for (const [comment, line] of examples) {
    for (const part of wrapWords(comment, Math.max(20, width - 4))) lines.push(`  # ${part}`);
    lines.push(...breakCommand(line, width));
  }
  return lines.join('\n') + '\n';
}

/**
 * A sentence that ends in a command (`Export the pages with: crawl job pages x`), for a terminal
 * `width` columns wide: one line when it fits; else the prose wrapped at its spaces, and the
 * command on lines of its own, indented, broken between its words with a trailing ` \`, so what
 * is shown can still be pasted into a shell. `measure` counts the prose's columns.
 */
export function fitCommandHint(prose: string, command: string, width: number, measure: (text: string) => number = (t) => t.length): string[] {
  const one = `${prose} ${command}`;
  if (measure(one) <= width) return [one];
  return [...wrapWords(prose, Math.max(20, width), measure), ...breakCommand(command, width, '   ')];
}

/** `  $ words...`, continued on lines indented by six with ` \` at the end of each but the last. */
function breakCommand(line: string, width: number, first = '  $'): string[] {
  const out: string[] = [];
  let current = first;
  let words = 0;
  for (const word of shellWords(line)) {
    // Room for the word, and for ` \` should another follow.
    if (words > 0 && current.length + 1 + word.length + 2 > width) {
      out.push(`${current} \\`);
      current = `     `;
      words = 0;
    }
    current += ` ${word}`;
    words++;
  }
  out.push(current);
  return out;
}

/** The line split at spaces outside single and double quotes, each word as written. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  for (const c of line) {
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === ' ') {
      if (word !== '') words.push(word);
      word = '';
      continue;
    }
    word += c;
  }
  if (word !== '') words.push(word);
  return words;
}
