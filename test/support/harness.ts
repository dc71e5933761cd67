// Runs the CLI inside the test process: runCli with streams made of memory and a fake clock,
// against real HTTP (the sandbox or a small node:http server on 127.0.0.1). No process is spawned,
// no wall-clock time is waited: what the CLI waited is in `clock.sleeps`.
import { runCli } from '../../src/app/run-cli.js';
import { InterruptedError } from '../../src/errors.js';
import { testStreams, type TestStreams, type TestStreamsOptions } from '../../src/io/test-streams.js';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../../src/platform/clock.js';
import type { Platform } from '../../src/platform/platform.js';
import { fakeClock, type FakeClock } from './fake-clock.js';

export interface CrawlOptions {
  env?: Record<string, string | undefined>;
  /** Which streams are terminals (`true`: all three). */
  tty?: TestStreamsOptions['tty'];
  /** What stdin holds. */
  input?: string;
  columns?: number;
  rows?: number;
  stdoutFails?: TestStreamsOptions['stdoutFails'];
  stderrFails?: TestStreamsOptions['stderrFails'];
  /** A fake clock made for the run unless given; `realClock` runs on real time. */
  clock?: Clock;
  /** Aborting it is Ctrl-C (or SIGTERM, with `new InterruptedError(143)` as the reason). */
  signal?: AbortSignal;
  /** Called with the run's streams before it starts: to resize the terminal or type into it mid-run. */
  onStreams?: (streams: TestStreams) => void;
  /** The system the run is on: this one by default, with a home folder of the tests' own (never the user's). */
  platform?: Platform;
}

/** The home folder runs get by default: files that go into a home go here, not into the user's. */
export const TEST_HOME = fileURLToPath(new URL('../../.vitest-tmp/home', import.meta.url));

export interface CrawlResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as written: what a terminal would show. */
  output: string;
  /** The clock the run used (a FakeClock unless one was given). */
  clock: FakeClock;
}

export async function crawl(argv: string[], options: CrawlOptions = {}): Promise<CrawlResult> {
  const streams = testStreams({
    ...(options.tty === undefined ? {} : { tty: options.tty }),
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(options.columns === undefined ? {} : { columns: options.columns }),
    ...(options.rows === undefined ? {} : { rows: options.rows }),
    ...(options.stdoutFails === undefined ? {} : { stdoutFails: options.stdoutFails }),
    ...(options.stderrFails === undefined ? {} : { stderrFails: options.stderrFails }),
  });
  options.onStreams?.(streams);
  const clock = options.clock ?? fakeClock();
  const env: Record<string, string | undefined> = { ...options.env };
  const code = await runCli(argv, {
    env,
    streams,
    clock,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    nodeVersion: process.versions.node,
    platform: options.platform ?? { os: process.platform, home: TEST_HOME },
  });
  return { code, stdout: streams.stdoutText(), stderr: streams.stderrText(), output: streams.outputText(), clock: clock as FakeClock };
}

/** An interrupt for `signal`: Ctrl-C (130) or SIGTERM (143). */
export function interrupt(controller: AbortController, signal: 'SIGINT' | 'SIGTERM' = 'SIGINT'): void {
  controller.abort(new InterruptedError(signal === 'SIGTERM' ? 143 : 130));
}
