// A key kept by a secret manager, reached through the profile's commands: `key-command` prints the
// key on its stdout (as AWS's credential_process and git's credential helpers do) and
// `key-store-command` stores a new key given on its stdin. Both run through the same runner as
// `keys rotate --to-command` (platform/shell-command.ts): a process group of their own, the key
// never in an argument or the environment, and a bound on time and on output.
import { CALLED_OFF } from '../../platform/deadline.js';
import type { Env } from '../../platform/env.js';
import { withoutByteOrderMark } from '../../text/byte-order-mark.js';
import { describeChar, keyDefect, looksLikeBareKey, trimKeyText } from '../../text/keys.js';
import { KeyStoreError, type DeadlineClock, type KeyStore, type KeyStoreBounds } from './key-store.js';
import { commandName, describeCommand } from './store-names.js';

/** Far above any key; a command that floods stdout is stopped, not read into memory. */
const MAX_OUTPUT_BYTES = 64 * 1024;
/** What is kept of a failing command's stderr for its error message. */
const STDERR_TAIL = 400;

export interface CommandContext {
  env: Env;
  bounds: KeyStoreBounds;
  clock: DeadlineClock;
  /** The command's stderr, passed on as it comes (a secret manager may ask something there). */
  onStderr(text: string): void;
  /** The `crawl …` command lines hints name (with the run's --profile). */
  command(words: readonly string[]): string;
  /** One line for the user on stderr. */
  notice(line: string): void;
  /** A secret never to be shown (the run's redactor). */
  onSecret(text: string): void;
}

export class CommandStore implements KeyStore {
  readonly kind = 'command' as const;
  readonly readCommand: string;
  readonly storeCommand: string | undefined;
  readonly #ctx: CommandContext;
  /** The key found in the command itself was said once (a run may read the key twice). */
  #warned = false;

  constructor(readCommand: string, storeCommand: string | undefined, ctx: CommandContext) {
    this.readCommand = readCommand;
    this.storeCommand = storeCommand;
    this.#ctx = ctx;
  }

  describe(): string {
    return describeCommand(this.readCommand);
  }

  async read(signal: AbortSignal): Promise<string | undefined> {
    const { stdout } = await this.#run('key-command', this.readCommand, '', signal, true);
    // A file saved with a byte-order mark and printed as it is (`type key.txt` after PowerShell
    // 5.1's `Set-Content -Encoding UTF8`) starts with one: the mark of the file, not of the key.
    const key = trimKeyText(withoutByteOrderMark(stdout));
    const name = commandName(this.readCommand);
    if (key === '') {
      throw new KeyStoreError(`key-command (${name} …) printed no key`, 'it must print the key alone on its standard output');
    }
    const lines = key.split(/\r?\n/).length;
    if (lines > 1) {
      throw new KeyStoreError(`key-command (${name} …) printed ${lines} lines, not one key; nothing was sent`, 'it must print the key alone on its standard output');
    }
    const defect = keyDefect(key);
    if (defect !== undefined) {
      throw new KeyStoreError(`what key-command (${name} …) printed is not a key: it ${defect}; nothing was sent`, 'it must print the key alone on its standard output');
    }
    // `config set key-command "printf %s $KEY"` in double quotes: the shell put the key itself
    // into the command, so the config file keeps it in plaintext and `config list` shows it, the
    // very things a key command is for avoiding. The run goes on (the key works); the user is told
    // each time until the command fetches the key instead.
    if (this.readCommand.includes(key) && !this.#warned) {
      this.#warned = true;
      // Named by the program it runs, with the key taken out wherever it stood in the command.
      const shown = commandName(this.readCommand.split(key).join('…'));
      this.#ctx.notice(
        `warning: key-command (${shown} …) holds the key itself: the config file keeps it in plaintext, and \`${this.#ctx.command(['config', 'list'])}\` shows it; set a command that fetches the key (in single quotes, so that the shell leaves a variable such as $CRAWL_SECRET for the command to read), or keep the key in the system keyring with \`${this.#ctx.command(['auth', 'login'])}\``,
      );
    }
    return key;
  }

  async write(key: string, signal: AbortSignal): Promise<void> {
    if (this.storeCommand === undefined) {
      throw new KeyStoreError(
        'the profile reads its key with key-command but has no key-store-command to store a new one',
        `set one with \`${this.#ctx.command(['config', 'set', 'key-store-command'])} '<command that reads the key on stdin>'\``,
      );
    }
    await this.#run('key-store-command', this.storeCommand, key + '\n', signal, false);
  }

  /** The secret manager is left alone: crawl only forgets the commands (the caller does that). */
  async erase(): Promise<boolean> {
    return false;
  }

  async #run(setting: string, command: string, input: string, runSignal: AbortSignal, capture: boolean): Promise<{ stdout: string }> {
    const ctx = this.#ctx;
    const name = commandName(command);
    // One word with a key's look is most likely the key pasted where its command goes (set before
    // config set refused it, or written by hand): the shell's "not found" and the error's tail
    // would print it. It is known as a secret first, so what crawl shows holds it redacted.
    const word = command.trim();
    if (!/\s/.test(word) && looksLikeBareKey(word)) ctx.onSecret(word);
    // Loaded here only: node:child_process has no business in the start-up of every other command.
    const { describeOutcome, runShellCommand } = await import('../../platform/shell-command.js');
    const { CRAWL_API_KEY: _inUse, ...env } = ctx.env;
    let stdout = '';
    let stdoutBytes = 0;
    let stderrTail = '';
    let flooded = false;
    // Not `bounded`: a command stopped at its bound (or by Ctrl-C) is waited for until it has
    // ended, its whole process group with it (SIGTERM, then SIGKILL), so none outlives crawl.
    runSignal.throwIfAborted();
    const stop = new AbortController();
    let timedOut = false;
    const onRunAbort = (): void => stop.abort(runSignal.reason);
    runSignal.addEventListener('abort', onRunAbort, { once: true });
    const settled = new AbortController();
    ctx.clock.deadline(ctx.bounds.commandMs, settled.signal).then(
      () => {
        timedOut = true;
        stop.abort(new Error('timed out'));
      },
      () => undefined,
    );
    let outcome: Awaited<ReturnType<typeof runShellCommand>>;
    try {
      outcome = await runShellCommand({
        command,
        input,
        env,
        onStdout: (text) => {
          stdoutBytes += Buffer.byteLength(text);
          if (stdoutBytes > MAX_OUTPUT_BYTES) {
            flooded = true;
            stop.abort(new Error('flooded'));
            return;
          }
          // What the store command prints is never the key's place: only the read keeps it.
          if (capture) stdout += text;
        },
        onStderr: (text) => {
          stderrTail = (stderrTail + text).slice(-STDERR_TAIL);
          ctx.onStderr(text);
        },
        signal: stop.signal,
        killAfterMs: 1_000,
        clock: ctx.clock,
      });
    } finally {
      settled.abort(CALLED_OFF);
      runSignal.removeEventListener('abort', onRunAbort);
    }
    if (flooded) throw new KeyStoreError(`${setting} (${name} …) printed more than ${MAX_OUTPUT_BYTES / 1024} KiB; it was stopped and nothing was sent`, 'it must print the key alone on its standard output');
    if (timedOut) {
      throw new KeyStoreError(`${setting} (${name} …) did not finish within ${ctx.bounds.commandMs / 1000} s; it was stopped`, 'check that it runs on its own without waiting for input; CRAWL_KEY_COMMAND_TIMEOUT sets the bound in seconds');
    }
    runSignal.throwIfAborted();
    if (outcome.kind !== 'exited' || outcome.code !== 0) {
      const tail = lastLine(stderrTail);
      throw new KeyStoreError(`${setting} (${name} …) failed: ${describeOutcome(outcome)}${tail === '' ? '' : `: ${tail}`}`, `run it yourself to see why; \`${ctx.command(['config', 'get', setting])}\` shows it`);
    }
    return { stdout };
  }
}

/** The last non-empty line of a command's stderr, with anything that could act on a terminal named instead. */
function lastLine(text: string): string {
  const line = text.split(/\r?\n/).filter((l) => l.trim() !== '').pop() ?? '';
  let out = '';
  for (const char of line.slice(-200)) {
    const code = char.codePointAt(0) ?? 0;
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) ? `<${describeChar(code)}>` : char;
  }
  return out.trim();
}
