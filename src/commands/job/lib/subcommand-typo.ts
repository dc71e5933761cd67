// `crawl job <id>` reads any word as a job id, so `crawl job stauts` (or `crawl job list`) asks the
// service for a job called "stauts". When no such job exists and the word is close to one of the
// group's commands, the 404 says which command was probably meant.
import type { Deps } from '../../../deps.js';
import { CrawlError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { closestWord } from '../../../text/similar.js';
import { crawlCommand } from '../../shared/suggest.js';

const COMMANDS = ['status', 'watch', 'pages', 'cancel'] as const;

/** Words people reach for from other tools, and the command that does it here. */
const SYNONYMS: Readonly<Record<string, (typeof COMMANDS)[number]>> = {
  show: 'status', view: 'status', get: 'status', info: 'status', describe: 'status',
  follow: 'watch', wait: 'watch', tail: 'watch',
  export: 'pages', download: 'pages', dump: 'pages',
  delete: 'cancel', rm: 'cancel', stop: 'cancel', kill: 'cancel', abort: 'cancel',
};

/** Words for what the service cannot do: there is no command to suggest, so the hint says so. */
const NO_SUCH = new Set(['list', 'ls', 'all', 'create', 'new', 'start', 'run', 'submit']);

/**
 * Runs `work` (the default command's), with a 404 for an id that looks like a mistyped command
 * turned into one that says so. Only for an id that came through `crawl job <id>`: after
 * `crawl job status <id>` a suggestion of `crawl job status` would make no sense.
 */
export async function withTypoHint(deps: Deps, idViaDefault: string | undefined, work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (error) {
    const hint = idViaDefault !== undefined && error instanceof CrawlError && error.exitCode === ExitCode.notFound ? typoHint(deps, idViaDefault) : undefined;
    if (hint === undefined || !(error instanceof CrawlError)) throw error;
    throw new CrawlError(error.message, error.exitCode, { ...(error.httpStatus === undefined ? {} : { httpStatus: error.httpStatus }), hint, cause: error });
  }
}

function typoHint(deps: Deps, word: string): string | undefined {
  const lower = word.toLowerCase();
  if (NO_SUCH.has(lower)) {
    return `\`${word}\` was read as a job id: \`crawl job\` has no ${lower} command; its commands are ${COMMANDS.join(', ')}`;
  }
  const meant = SYNONYMS[lower] ?? closestWord(lower, COMMANDS);
  if (meant === undefined) return undefined;
  return `\`${word}\` was read as a job id: did you mean \`${crawlCommand(deps, ['job', meant])}\`?`;
}
