import type { KeyDestination } from '../../../api/rotation.js';
import type { Deps } from '../../../deps.js';
import { CrawlError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { writeKeyFile } from './key-file.js';

/** `--output-file <path>`: a new file, mode 0600 from its first byte (checked before the key is made). */
export function fileDestination(deps: Deps, path: string): KeyDestination {
  return { kind: 'new', describe: () => path, write: (key) => writeKeyFile(path, key, deps) };
}

/** `--output-file -`: the key alone on stdout is where it is kept (nothing checks the reader kept it). */
export function stdoutDestination(deps: Deps): KeyDestination {
  return { kind: 'new', describe: () => 'standard output', write: (key) => deps.handOver(key + '\n') };
}

/** `--to-command`: a secret store's CLI, given the key on its stdin; it took the key only if it exits 0. */
export function commandDestination(deps: Deps, command: string): KeyDestination {
  return { kind: 'store', describe: () => 'the --to-command command', write: (key) => storeWithCommand(deps, command, key) };
}

/** The command's exit status, in words, when it is not 0: the store did not take the key. */
export class StoreCommandError extends CrawlError {
  constructor(outcome: string) {
    super(`the --to-command command did not store the key: ${outcome}`, ExitCode.failure);
    this.name = 'StoreCommandError';
  }
}

/**
 * The key on the command's stdin; its output passed on (redacted, line by line: with --json, stdout
 * is the rotation's document, so the command's stdout goes to stderr). Neither the new key nor the
 * one in use is in its environment or arguments.
 */
async function storeWithCommand(deps: Deps, command: string, key: string): Promise<void> {
  // Loaded here only: node:child_process has no business in the start-up of every other command.
  const { describeOutcome, runShellCommand } = await import('../../../platform/shell-command.js');
  const { CRAWL_API_KEY: _inUse, ...env } = deps.env;
  const out = deps.globals.json ? deps.io.stderr : deps.io.stdout;
  const outcome = await runShellCommand({
    command,
    input: key + '\n',
    env,
    onStdout: (text) => void out.write(text),
    onStderr: (text) => void deps.io.stderr.write(text),
    signal: deps.signal,
    platform: deps.platform,
    // The grace between SIGTERM and SIGKILL after Ctrl-C is a wait of the run like any other.
    clock: deps.clock,
  });
  if (outcome.kind !== 'exited' || outcome.code !== 0) throw new StoreCommandError(describeOutcome(outcome));
}
