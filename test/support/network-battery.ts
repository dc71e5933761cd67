// The broken-network battery, shared by the files that run it for a part of the commands each
// (so that each file stays short): refused, reset before the headers and in the middle of a body,
// headers slower than --timeout, a body that trickles for ever, a server that accepts and never
// answers. Each must end with exit 5 (a watch: exit 7 at --max-wait, as transient failures do not
// end it), one line on stderr, no stack trace, no key, a POST or DELETE sent exactly once, and
// only the retry policy's pauses and each hung attempt's --timeout waited, on the run's fake
// clock: a hang lasts until the server holds the request, then the clock runs to the next
// deadline, as real time would.
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import {
  COMMANDS,
  GET_ATTEMPTS,
  identity,
  MAX_BACKOFF_MS,
  MAX_WAIT_S,
  runCommand,
  TIMEOUT_S,
  checkOutcome,
  type Command,
  type Retries,
} from './battery.js';
import { refusedUrl, startHostile, startSilentTcp, type Fault } from './hostile-server.js';
import { fakeClock } from './fake-clock.js';
import { sandboxFixture, type SandboxFixture } from './sandbox.js';

interface NetFault {
  name: string;
  /** Aimed at the command's target request (through the hostile proxy); else the whole server misbehaves. */
  fault?: Fault;
  server?: 'refused' | 'silent-tcp';
  message: RegExp;
  /** Each attempt lasts a whole --timeout. */
  timesOut: boolean;
}

const timedOut = new RegExp(`timed out after ${TIMEOUT_S} s`);

const FAULTS: NetFault[] = [
  { name: 'connection refused', server: 'refused', message: /connection refused/, timesOut: false },
  { name: 'reset before the headers', fault: { kind: 'reset' }, message: /connection reset|closed the connection/, timesOut: false },
  { name: 'reset in the middle of the body', fault: { kind: 'reset-mid-body' }, message: /connection reset|closed the connection|terminated/, timesOut: false },
  { name: 'headers slower than --timeout', fault: { kind: 'slow-headers', ms: 60_000 }, message: timedOut, timesOut: true },
  { name: 'a body that trickles for ever', fault: { kind: 'trickle', ms: 5 }, message: timedOut, timesOut: true },
  { name: 'accepts and never answers', server: 'silent-tcp', message: timedOut, timesOut: true },
];

/**
 * A watch keeps polling through hangs until --max-wait: long enough, when each attempt hangs for
 * its whole --timeout, for a first poll to fail (and warn) and a second to be cut short.
 */
const HUNG_MAX_WAIT_S = 30;

/**
 * What a run waits on its clock: the backoff between its attempts, and the --timeout of each
 * attempt that hung; a watch, --max-wait.
 */
function waitsFor(cmd: Command, f: NetFault): { withinMs: number; retries?: Retries; gaveUpAtMs?: number; hungMs?: number } {
  if (cmd.polls) {
    const maxWaitMs = (f.timesOut ? HUNG_MAX_WAIT_S : MAX_WAIT_S) * 1000;
    return { withinMs: maxWaitMs, gaveUpAtMs: maxWaitMs };
  }
  // The list before a revoke or rotate is a GET, retried: a dead server fails it.
  const attempts = cmd.method === 'GET' || (cmd.listsFirst && f.server) ? GET_ATTEMPTS : 1;
  const hungMs = f.timesOut ? attempts * TIMEOUT_S * 1000 : 0;
  return { withinMs: (attempts > 1 ? MAX_BACKOFF_MS : 0) + hungMs, retries: { count: attempts - 1 }, hungMs };
}

/** Registers the battery (its own sandbox, every fault) for the commands named. */
export function networkBattery(names: readonly string[]): void {
  // Most of a case is waiting (timeouts, backoff): more of them at once than vitest's default 5.
  vi.setConfig({ maxConcurrency: 12 });
  let fx: SandboxFixture;
  beforeAll(async () => {
    fx = await sandboxFixture();
  });
  afterAll(() => fx.close());

  const cases = COMMANDS.filter((c) => names.includes(c.name)).flatMap((cmd) => FAULTS.map((f) => [cmd.name, f.name, cmd, f] as const));
  describe.concurrent('broken networks', () => {
    it.for(cases)('%s: %s', async ([, , cmd, f], { expect }) => {
      const id = identity(fx.sandbox);
      let url: string;
      let close: () => Promise<void>;
      let attempts: (() => number) | undefined;
      let sentAt: () => number[] = () => [];
      // Stamps what the proxy sees with the run's virtual time; a request held lasts until its deadline.
      const clock = fakeClock();
      const onHold = (): void => void clock.untilNextDeadline();
      if (f.server === 'refused') {
        url = await refusedUrl();
        close = async () => undefined;
      } else if (f.server === 'silent-tcp') {
        const silent = await startSilentTcp({ onHold });
        ({ url, close } = silent);
        attempts = cmd.listsFirst ? undefined : silent.requests;
      } else {
        const hostile = await startHostile({ upstream: fx.sandbox.url, rules: [{ method: cmd.method, path: cmd.path(id), fault: f.fault as Fault }], clock, onHold });
        ({ url, close } = hostile);
        attempts = () => hostile.count(cmd.method, cmd.path(id));
        sentAt = () => hostile.seen.filter((s) => s.method === cmd.method && cmd.path(id).test(s.url)).map((s) => s.at);
      }
      try {
        const extra = cmd.polls && f.timesOut ? ['--max-wait', String(HUNG_MAX_WAIT_S)] : [];
        const r = await runCommand(cmd, id, url, { clock, extra });
        checkOutcome(
          expect,
          r,
          {
            // A watch that never read the job gives up at --max-wait with the network's code too.
            code: 5,
            message: cmd.polls ? /gave up waiting: the job could not be read yet/ : f.message,
            ...waitsFor(cmd, f),
          },
          [id.key],
        );
        if (attempts && !cmd.polls) {
          // GETs are retried; a POST or DELETE could repeat a side effect, so it goes once.
          expect(attempts(), r.stderr).toBe(cmd.method === 'GET' ? GET_ATTEMPTS : 1);
        }
        // Once a POST or DELETE is out, nothing more is waited but its own --timeout: it came at the
        // run's last instant, or that long before.
        const after = f.timesOut ? TIMEOUT_S * 1000 : 0;
        if (cmd.method !== 'GET') for (const at of sentAt()) expect(at + after, `pauses: ${r.clock.sleeps.join(', ')}`).toBe(clock.now());
        if (cmd.polls) expect(r.stderr).toMatch(new RegExp(`crawl: warning: .*(${f.message.source})`));
      } finally {
        await close();
        id.cleanup();
      }
    });
  });
}
