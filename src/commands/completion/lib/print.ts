import type { Deps } from '../../../deps.js';
import { CrawlError, UsageError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { withinDeadline } from '../../../platform/deadline.js';
import { sanitize } from '../../../text/sanitize.js';
import { recentJobs } from '../../shared/job-history.js';
import { complete, type CommandNode, type Sources } from './complete.js';
import { decodeRequest, shellOwnLine } from './protocol.js';
import { completionScript, type Shell } from './scripts.js';

export interface CompletionOptions {
  shell: Shell;
}

export interface CompleteOptions {
  /** What the script sent after `__complete` (./protocol.ts): the words of the line, the one being completed last. */
  args: string[];
  /** The commands, their options and operands, as the program declares them. */
  tree: CommandNode;
}

/** How long Tab may wait for the service (key ids): past it, nothing is offered. */
const SERVICE_WAIT_MS = 1_500;
/** Help topics `crawl help <topic>` knows besides the commands. */
const HELP_TOPICS = ['exit-codes', 'environment'];

export async function completionRun(deps: Deps, options: CompletionOptions): Promise<number> {
  if (deps.jq) throw new UsageError('crawl completion prints a shell script, not JSON: --jq does not apply');
  deps.io.stdout.write(completionScript(options.shell));
  return ExitCode.ok;
}

/**
 * One candidate a line, `value<TAB>description`, or the line that hands the word to the shell
 * (./protocol.ts). Any failure prints nothing and exits 0: a shell shows whatever a completer
 * prints, so an error would land in the user's prompt.
 */
export async function completeRun(deps: Deps, options: CompleteOptions): Promise<number> {
  try {
    const request = decodeRequest(options.args);
    if (!request) return ExitCode.ok;
    const result = await complete(options.tree, request.words, sources(deps));
    if (result.kind !== 'values') {
      const line = shellOwnLine(request, result);
      if (line !== undefined) deps.io.stdout.write(line + '\n');
      return ExitCode.ok;
    }
    const lines = result.values
      // A value a shell would split or act on (a hostile key id) is not offered.
      // eslint-disable-next-line no-control-regex -- control characters are what it keeps out
      .filter(({ value }) => value !== '' && /^[^\s\u0000-\u001f\u007f-\u009f]+$/.test(value) && sanitize(value) === value)
      .map(({ value, description }) => `${value}\t${sanitize(description).replace(/\s+/g, ' ')}`);
    if (lines.length > 0) deps.io.stdout.write(lines.join('\n') + '\n');
  } catch {
    // Nothing offered.
  }
  return ExitCode.ok;
}

function sources(deps: Deps): Sources {
  return {
    helpTopics: HELP_TOPICS,
    profiles: async () => {
      try {
        return Object.keys(deps.settings.store.read().profiles).sort();
      } catch {
        return [];
      }
    },
    jobs: async () => {
      try {
        return recentJobs(deps);
      } catch {
        return [];
      }
    },
    keys: async () => {
      try {
        const deadline = deps.clock.now() + SERVICE_WAIT_MS;
        // The keys API, and the HTTP layer under it, load only when Tab asks for key ids.
        const [http, { listKeys }] = await Promise.all([deps.http(), import('../../../api/keys.js')]);
        const list = await withinDeadline(deps.clock, deadline, listKeys(http), () => new CrawlError('too slow', ExitCode.network));
        return list.keys.flatMap((k) => {
          const name = typeof k.name === 'string' ? k.name : '';
          const values = [{ value: k.id, description: name }];
          if (typeof k.keyPrefix === 'string') values.push({ value: k.keyPrefix, description: name });
          return values;
        });
      } catch {
        return [];
      }
    },
  };
}
