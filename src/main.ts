// The process adapter, and the only module of the CLI that touches `process` (with
// io/system-streams.ts): the environment, the real streams, signals, and the exit once stdout has
// drained. Everything else runs in runCli, which tests call in-process.
import { Guard } from './app/guard.js';
import { runCli } from './app/run-cli.js';
import { listenForSignals, LONG_LINE_GRACE_MS, signalExit } from './app/signal-exit.js';
import { systemStreams, type SystemStreams } from './io/system-streams.js';
import { realClock } from './platform/clock.js';
import { hostPlatform } from './platform/host.js';
import type { Launch } from './launch/load-bundle.cjs';

/**
 * What bin/crawl.js calls: runs the CLI, then exits with its code once stdout has drained, so
 * piped output is never cut short and no idle keep-alive socket or timer holds the process open.
 */
export function run(argv: string[], launch: Launch = {}): void {
  const streams = systemStreams();
  // The help it prints, for the launcher to keep (src/launch/help-cache.cts).
  let help = '';
  const { helpShown } = launch;
  if (helpShown) {
    const writeHelp = streams.writeHelp.bind(streams);
    streams.writeHelp = (text) => {
      help += text;
      writeHelp(text);
    };
  }
  const guard = new Guard();
  const signals = signalExit({
    guard,
    clock: realClock,
    settleStdout: (graceMs) => streams.settleStdout(graceMs),
    exit: (code) => process.exit(code),
  });
  const platform = hostPlatform();
  listenForSignals(signals, platform, (name, listener) => process.on(name, listener));

  void runCli(argv, { env: process.env, platform, streams, clock: realClock, signal: signals.interrupt, guard, nodeVersion: process.versions.node }).then(
    (code) => {
      signals.finished();
      if (helpShown && help !== '' && code === 0 && !signals.interrupt.aborted) helpShown(help, { terminal: streams.isTTY.stdout, columns: streams.columns });
      exitAfterDrain(streams, code, signals.interrupt.aborted);
    },
  );
}

/** The exit once the run is over: after a signal the reader is not waited for, it has whole lines. */
function exitAfterDrain(streams: SystemStreams, code: number, signalled: boolean): void {
  if (signalled) return void streams.settleStdout(LONG_LINE_GRACE_MS).then(() => process.exit(code));
  const out = streams.builtStdout();
  if (out && out.writableLength > 0) out.once('drain', () => process.exit(code));
  else process.exit(code);
}

/** Runs the CLI with the process's streams and resolves with the exit code, leaving the process alone. */
export function main(argv: string[]): Promise<number> {
  return runCli(argv, { env: process.env, platform: hostPlatform(), streams: systemStreams(), clock: realClock, nodeVersion: process.versions.node });
}
