// The help the CLI prints, read by running it in this process: the man pages (man.ts) and the
// command reference (commands-doc.ts) are both made from it, so neither can say something else.
import { runCli } from '../app/run-cli.js';
import { testStreams } from '../io/test-streams.js';
import { realClock } from '../platform/clock.js';

export interface HelpLayout {
  columns: number;
  /** Help laid out as on a terminal of `columns`; otherwise as off one. */
  terminal: boolean;
}

/**
 * What `crawl <words>` prints on stdout (`<words> --help`, `help <topic>`). By default with no
 * settings from this machine's environment: the help must not depend on who builds it.
 */
export async function helpOf(words: readonly string[], layout: HelpLayout, env: Record<string, string> = {}): Promise<string> {
  const streams = testStreams({ columns: layout.columns, tty: { stdout: layout.terminal } });
  await runCli([...words], { env: { ...env }, streams, clock: realClock, nodeVersion: process.versions.node });
  return streams.stdoutText();
}

/** The command names a help text lists under "Commands:" (help itself left out). */
export function commandsIn(help: string): string[] {
  const section = help.split(/\n(?=\S)/).find((part) => part.startsWith('Commands:'));
  if (!section) return [];
  return section
    .split('\n')
    .slice(1)
    .map((line) => /^ {2}(\S+)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'help');
}

export interface HelpPage {
  /** The words after `crawl`: `['job', 'watch']`, or `['api']` for a command without subcommands. */
  words: string[];
  help: string;
}

/** Every command's help, walked from `crawl --help` as a user would: a group's subcommands, in order. */
export async function commandHelps(layout: HelpLayout): Promise<{ root: string; groups: HelpPage[]; commands: HelpPage[] }> {
  const root = await helpOf(['--help'], layout);
  const groups: HelpPage[] = [];
  const commands: HelpPage[] = [];
  for (const group of commandsIn(root)) {
    const help = await helpOf([group, '--help'], layout);
    const subcommands = commandsIn(help);
    if (subcommands.length === 0) {
      commands.push({ words: [group], help });
      continue;
    }
    groups.push({ words: [group], help });
    for (const sub of subcommands) commands.push({ words: [group, sub], help: await helpOf([group, sub, '--help'], layout) });
  }
  return { root, groups, commands };
}
