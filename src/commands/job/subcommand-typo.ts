// `crawl job <id>` reads any word as a job id, so `crawl job wtach demo-small` (or `crawl job
// list`) would ask the service for a job called "wtach". A first word near one of the group's
// commands, a synonym of one, or a word for what the service cannot do is refused before anything
// is sent, with the command probably meant; a job with such an id is still `crawl job status <id>`.
import { UsageError } from '../../errors.js';
import { closestWord } from '../../text/similar.js';
import { shellQuote } from '../../text/shell.js';

const COMMANDS = ['status', 'watch', 'pages', 'cancel'] as const;

/** Words people reach for from other tools, and the command that does it here. */
const SYNONYMS: Readonly<Record<string, (typeof COMMANDS)[number]>> = {
  show: 'status', view: 'status', get: 'status', info: 'status', describe: 'status', stat: 'status',
  follow: 'watch', wait: 'watch', tail: 'watch', monitor: 'watch',
  export: 'pages', download: 'pages', dump: 'pages', page: 'pages', fetch: 'pages',
  delete: 'cancel', del: 'cancel', remove: 'cancel', rm: 'cancel', stop: 'cancel', kill: 'cancel', abort: 'cancel', terminate: 'cancel',
};

/** Words for what the service cannot do: there is no command to suggest, so the hint says so. */
const NO_SUCH = new Set(['list', 'ls', 'all', 'create', 'new', 'start', 'run', 'submit']);

/**
 * Throws a UsageError when the words after `crawl job` (`args`, as commander gathered them: the
 * would-be ids and any flags) begin with a mistyped command rather than a job id.
 */
export function refuseMistypedCommand(args: readonly string[]): void {
  const at = args.findIndex((word) => !word.startsWith('-'));
  const word = at === -1 ? undefined : args[at];
  if (word === undefined) return;
  const lower = word.toLowerCase();
  const asId = `for a job with this id: \`crawl job status ${shellQuote(word)}\``;
  if (NO_SUCH.has(lower)) {
    throw new UsageError(`unknown command '${word}' for \`crawl job\``, `\`crawl job\` has no ${lower} command; its commands are ${COMMANDS.join(', ')} (${asId})`);
  }
  const meant = SYNONYMS[lower] ?? closestWord(lower, COMMANDS);
  if (meant === undefined) return;
  const rest = args.filter((_, i) => i !== at);
  const suggestion = ['crawl', 'job', meant, ...rest].map(shellQuote).join(' ');
  throw new UsageError(`unknown command '${word}' for \`crawl job\``, `did you mean \`${suggestion}\`? (${asId})`);
}
