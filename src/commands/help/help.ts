import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../../errors.js';
import { cancelRule, exitCodeTable, ExitCode, filterHaltRule, severalJobsRule } from '../../exit-codes.js';
import { closestWord } from '../../text/similar.js';
import { wrapWords } from '../../text/wrap.js';

export const environmentTable: ReadonlyArray<readonly [string, string]> = [
  ['CRAWL_BASE_URL', 'base URL of the service (flag --base-url wins; config key base-url loses)'],
  ['CRAWL_API_KEY', 'API key (wins over the config key api-key; never taken as a flag); spaces and line breaks around it are ignored, any inside it are refused'],
  ['CRAWL_PROFILE', 'config profile (flag --profile wins; default "default")'],
  ['CRAWL_CONFIG_DIR', 'config folder (default $XDG_CONFIG_HOME/crawl, else ~/.config/crawl)'],
  ['XDG_CONFIG_HOME', 'base of the default config folder; ignored unless an absolute path (XDG spec)'],
  ['CRAWL_JOB_HISTORY', '"off" (or 0, false, no): keep no list of the job ids looked at, which Tab offers'],
  ['XDG_STATE_HOME', 'base of crawl/recent-jobs.json, the ids Tab offers (default ~/.local/state); ignored unless absolute'],
  ['NO_COLOR', 'any value turns colour off (as --no-color does)'],
  ['FORCE_COLOR', 'colour on a terminal even with TERM=dumb ("0" turns it off); plain output has none'],
  ['HTTPS_PROXY, HTTP_PROXY', 'proxy for https:// and http:// requests'],
  ['NO_PROXY', 'hosts reached without the proxy'],
  ['CRAWL_SANDBOX_KEY', '`crawl sandbox`: the bootstrap key to use instead of the one kept for its port'],
  ['CRAWL_KEYRING_TIMEOUT', 'seconds a system keyring call may take, and a wait for it to be unlocked (default 5 and 60)'],
  ['CRAWL_KEY_COMMAND_TIMEOUT', 'seconds a key-command or key-store-command may run (default 30)'],
  ['SSL_CERT_FILE', 'a PEM file of certificate authorities trusted for https:// in place of the bundled ones'],
  ['SSL_CERT_DIR', 'folders (:-separated) of PEM files, trusted the same way'],
  ['NODE_EXTRA_CA_CERTS', 'a PEM file of certificate authorities trusted for https:// besides the others'],
];

/** Where help goes, and how wide it may be (the terminal's width; 80 off a terminal). */
export interface HelpOutput {
  write(text: string): void;
  width: number;
}

/** `crawl help exit-codes`, `crawl help environment`, or a command's help. */
export function helpTopic(program: CommandUnknownOpts, topic: string[], out: HelpOutput): number {
  const name = topic.join(' ');
  if (name === 'exit-codes') {
    out.write(renderTable(['CODE', 'MEANING'], exitCodeTable.map(([c, m]) => [String(c), m]), out.width));
    for (const rule of [severalJobsRule, cancelRule, filterHaltRule]) out.write('\n' + wrapWords(rule, Math.max(20, out.width)).join('\n') + '\n');
    return ExitCode.ok;
  }
  if (name === 'environment') {
    out.write(renderTable(['VARIABLE', 'MEANING'], environmentTable, out.width));
    return ExitCode.ok;
  }
  let command: CommandUnknownOpts = program;
  for (const [at, word] of topic.entries()) {
    // The commands help lists: not a group's own hidden `help`.
    const listed = command.createHelp().visibleCommands(command);
    const next = listed.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      // A mistyped command name gets the line meant, as a mistyped command does.
      const names = listed.map((c) => c.name());
      const meant = closestWord(word, at === 0 ? [...names, 'exit-codes', 'environment'] : names);
      const hint =
        meant !== undefined
          ? `did you mean \`crawl help ${[...topic.slice(0, at), meant].join(' ')}\`?`
          : at === 0
            ? 'topics: exit-codes, environment, or a command name'
            : `run \`crawl ${topic.slice(0, at).join(' ')} --help\` for ${command.commands.length > 0 ? 'its commands' : 'usage'}`;
      throw new UsageError(`unknown help topic "${name}"`, hint);
    }
    command = next;
  }
  // The whole help, as `--help` shows it: helpInformation() alone leaves out what the command adds
  // around it (its examples).
  command.outputHelp();
  return ExitCode.ok;
}

/** The narrowest the meaning column gets: below this, lines are left for the terminal to wrap. */
const MIN_MEANING = 20;

/**
 * Two columns, the second wrapped within `width` under itself. Measured by length: these tables
 * are our own ASCII text, and help must not load the display-width code.
 */
function renderTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>, width: number): string {
  const first = Math.max(headers[0]?.length ?? 0, ...rows.map((r) => r[0]?.length ?? 0));
  const indent = ' '.repeat(first + 2);
  const room = Math.max(MIN_MEANING, width - indent.length);
  return [headers, ...rows].map(([a, b]) => `${(a ?? '').padEnd(first)}  ${wrapWords(b ?? '', room).join('\n' + indent)}`).join('\n') + '\n';
}
