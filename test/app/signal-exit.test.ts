// What a signal does to the process (src/app/signal-exit.ts, wired to process.exit by src/main.ts),
// on a fake clock: when the exit comes, and what holds it. test/process/signals.test.ts shows
// the same with real processes and real signals, for the shorter holds.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Guard } from '../../src/app/guard.js';
import { FORCED_EXIT_MS, GRACE_MS, HARD_LIMIT_MS, listenForSignals, signalExit } from '../../src/app/signal-exit.js';
import { fakeClock, type FakeClock } from '../support/fake-clock.js';

const STEP = 50;

function setUp() {
  const clock = fakeClock();
  const guard = new Guard(() => clock.now());
  const exits: Array<{ code: number; at: number }> = [];
  const settled: number[] = [];
  const signals = signalExit({
    guard,
    clock,
    settleStdout: async (graceMs) => void settled.push(graceMs),
    exit: (code) => void exits.push({ code, at: clock.elapsed() }),
  });
  /** Moves time on in small steps (what each step makes due gets to run) until `ms` from now. */
  const runFor = async (ms: number): Promise<void> => {
    for (let done = 0; done < ms; done += STEP) await clock.advance(STEP);
  };
  return { clock, guard, exits, settled, signals, runFor };
}

const settleTurns = async (clock: FakeClock): Promise<void> => clock.advance(0);

describe('one signal', () => {
  it.each([['SIGINT', 130], ['SIGTERM', 143]] as const)('%s: the interrupt is aborted at once; the process exits %i at the forced-exit time if the run has not ended', async (signal, code) => {
    const { exits, signals, runFor } = setUp();
    signals.onSignal(signal);
    expect(signals.interrupt.aborted).toBe(true);
    expect((signals.interrupt.reason as { exitCode: number }).exitCode).toBe(code);
    await runFor(FORCED_EXIT_MS - STEP);
    expect(exits).toEqual([]);
    await runFor(STEP);
    expect(exits).toEqual([{ code, at: FORCED_EXIT_MS }]);
  });

  it('after the run has ended on its own: at once', async () => {
    const { clock, exits, signals } = setUp();
    signals.finished();
    signals.onSignal('SIGINT');
    await settleTurns(clock);
    expect(exits).toEqual([{ code: 130, at: 0 }]);
  });

  it('a second Ctrl-C: at once', async () => {
    const { clock, exits, signals, runFor } = setUp();
    signals.onSignal('SIGINT');
    await runFor(500);
    signals.onSignal('SIGINT');
    await settleTurns(clock);
    expect(exits).toEqual([{ code: 130, at: 500 }]);
  });

  it('terminal clean-ups run on the signal, before anything else', async () => {
    const { guard, signals } = setUp();
    const ran: string[] = [];
    guard.onCleanup(() => ran.push('cursor back'));
    signals.onSignal('SIGINT');
    expect(ran).toEqual(['cursor back']);
  });

  it("stdout's reader gets whole lines: the exit waits for that, with the long-line grace", async () => {
    const { clock, settled, signals } = setUp();
    signals.finished();
    signals.onSignal('SIGTERM');
    await settleTurns(clock);
    expect(settled).toEqual([1000]);
  });
});

describe('what holds the exit', () => {
  it('a critical section (a key being stored): past the forced exit, until it closes, then a grace to report', async () => {
    const { clock, exits, guard, signals, runFor } = setUp();
    let close!: () => void;
    const section = guard.critical(() => new Promise<void>((resolve) => (close = resolve)));
    signals.onSignal('SIGINT');
    signals.onSignal('SIGINT');
    await runFor(3000);
    expect(exits).toEqual([]);
    close();
    await section;
    await runFor(GRACE_MS);
    expect(exits).toEqual([{ code: 130, at: 3000 + GRACE_MS }]);
    expect(clock.elapsed()).toBe(3000 + GRACE_MS);
  });

  it('a hold that opens with the interrupt (an export saying what its file holds): a second SIGTERM sent from the handler of the first waits for it, then the grace', async () => {
    const { clock, exits, guard, signals, runFor } = setUp();
    const release = guard.holdOnceAborted(signals.interrupt);
    expect(guard.criticalOpen()).toBe(false);
    signals.onSignal('SIGTERM');
    expect(guard.criticalOpen()).toBe(true);
    signals.onSignal('SIGTERM');
    await runFor(FORCED_EXIT_MS + STEP);
    expect(exits).toEqual([]);
    release();
    await settleTurns(clock);
    await runFor(GRACE_MS);
    expect(exits).toEqual([{ code: 143, at: FORCED_EXIT_MS + STEP + GRACE_MS }]);
  });

  it('a hold released before any signal holds nothing', async () => {
    const { clock, exits, guard, signals } = setUp();
    guard.holdOnceAborted(signals.interrupt)();
    signals.finished();
    signals.onSignal('SIGTERM');
    expect(guard.criticalOpen()).toBe(false);
    await settleTurns(clock);
    expect(exits).toEqual([{ code: 143, at: 0 }]);
  });

  it('a critical section that never closes: the hard limit ends the process', async () => {
    const { exits, guard, signals, runFor } = setUp();
    void guard.critical(() => new Promise<void>(() => undefined));
    signals.onSignal('SIGINT');
    await runFor(HARD_LIMIT_MS - STEP);
    expect(exits).toEqual([]);
    await runFor(STEP);
    expect(exits).toEqual([{ code: 130, at: HARD_LIMIT_MS }]);
  });

  it('a POST on the wire past the hard limit: the process waits for its answer, then a grace to hand the key over', async () => {
    const { clock, exits, guard, signals, runFor } = setUp();
    // Its --timeout is 30 s; the answer comes 11.5 s after the signal.
    const settle = guard.mutationInFlight(clock.now() + 30_000);
    signals.onSignal('SIGINT');
    await runFor(11_500);
    expect(exits).toEqual([]);
    settle();
    await settleTurns(clock);
    await runFor(GRACE_MS);
    expect(exits).toEqual([{ code: 130, at: 11_500 + GRACE_MS }]);
  });

  it('a POST never answered: the hard limit counts from its own deadline', async () => {
    const { clock, exits, guard, signals, runFor } = setUp();
    guard.mutationInFlight(clock.now() + 15_000);
    signals.onSignal('SIGTERM');
    await runFor(15_000 + HARD_LIMIT_MS - 500);
    expect(exits).toEqual([]);
    await runFor(1000);
    expect(exits).toHaveLength(1);
    expect(exits[0]?.code).toBe(143);
    expect(exits[0]?.at).toBeGreaterThanOrEqual(15_000 + HARD_LIMIT_MS);
  });
});

describe("the process's signals (listenForSignals, as src/main.ts wires process.on)", () => {
  const wired = (os: NodeJS.Platform) => {
    const parts = setUp();
    const host = new EventEmitter();
    listenForSignals(parts.signals, { os }, (name, listener) => void host.on(name, listener));
    return { ...parts, host };
  };

  it('Windows: Ctrl-Break (SIGBREAK) ends a run as SIGTERM does: exit 143, at the forced-exit time', async () => {
    const { exits, host, signals, runFor } = wired('win32');
    host.emit('SIGBREAK');
    expect((signals.interrupt.reason as { exitCode: number }).exitCode).toBe(143);
    await runFor(FORCED_EXIT_MS);
    expect(exits).toEqual([{ code: 143, at: FORCED_EXIT_MS }]);
  });

  it.each([
    ['win32', ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK']],
    ['linux', ['SIGINT', 'SIGTERM', 'SIGHUP']],
    ['darwin', ['SIGINT', 'SIGTERM', 'SIGHUP']],
  ] as const)('%s: listens for %j, each ending the run with its code', (os, names) => {
    expect(wired(os).host.eventNames()).toEqual(names);
    for (const name of names) {
      const { host, signals } = wired(os);
      host.emit(name);
      expect((signals.interrupt.reason as { exitCode: number }).exitCode).toBe(name === 'SIGINT' ? 130 : 143);
    }
  });
});
