import { CommanderError } from 'commander';
import { InterruptedError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { processIO } from '../output/io.js';
import { buildProgram, type ProgramState } from "./program.js";
import { reportError } from './report.js';

/**
 * Runs the CLI for argv (without node and script) and resolves with the exit code. Nothing here
 * calls process.exit: bin/crawl.js does, after stdout has drained.
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const interrupter = new AbortController();
  const state: ProgramState = {};
  const onSignal = (signal: NodeJS.Signals): void => {
    const code = signal === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
    if (interrupter.signal.aborted) process.exit(code); // a second Ctrl-C: leave now
    state.ctx?.runCleanups();
    interrupter.abort(new InterruptedError(code));
    // Whatever the command is doing, the process ends promptly.
    setTimeout(() => process.exit(code), 2000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The reader of stdout went away (`crawl job watch x --json | head -1`): stop quietly, as a
  // closed pipe ends `job pages`, instead of dying of an unhandled EPIPE with a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    state.ctx?.runCleanups();
    process.exit(ExitCode.ok);
  });

  const program = buildProgram({ env, interrupt: interrupter.signal, state });
  const wantsJson = argv.includes('--json');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof state.exitCode === 'number' ? state.exitCode : ExitCode.ok;
  } catch (error) {
    state.ctx?.runCleanups();
    if (error instanceof InterruptedError) return error.exitCode;
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return ExitCode.ok;
      if (error.code === 'commander.help') return argv.length === 0 ? ExitCode.ok : ExitCode.usage;
      const message = (state.commanderError ?? error.message).replace(/^error:\s*/i, '').trim();
      error = new UsageError(message, 'run `crawl --help` for usage');
    }
    const io = state.ctx?.io ?? processIO(env, { noColor: true, noInput: true });
    return reportError(io, error, {
      json: state.ctx?.globals.json ?? wantsJson,
      verbose: state.ctx?.globals.verbose ?? argv.includes('--verbose'),
      redact: (text) => state.ctx?.redact(text) ?? text,
    });
  } finally {
    state.ctx?.runCleanups();
    await state.ctx?.close();
  }
}
