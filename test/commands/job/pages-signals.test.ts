// `job pages --output`, interrupted, in this process: the interrupt is what
// src/main.ts makes of Ctrl-C or SIGTERM. The file keeps whole records, in order, and the command
// ends on its own (130 / 143) while the next batch is still awaited. /dev/null and a regular file
// are written as before, with nothing said. The hangs that need real descriptors and a real signal
// (a FIFO no one reads, or whose reader stalls; stdout piped to a reader that stalls) are in
// test/process/pipes.test.ts; an interrupt while writing stdout, in test/app/interrupt.test.ts.
import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { Guard } from '../../../src/app/guard.js';
import { GRACE_MS, listenForSignals, signalExit } from '../../../src/app/signal-exit.js';
import { fakeClock } from '../../support/fake-clock.js';
import { crawl, ndjson, runCli, tempDir, waitFor } from '../../support/harness.js';
import { everyLineJson } from '../../support/local-faults.js';
import { expectInterruptedExport, records, startPagesServer, type PagesServer, type ScriptedJob } from '../../support/pages-server.js';

const BATCH = 1000;
const pagesOf = (total: number, render: (first: number, count: number) => string, stallAfter = Infinity): ScriptedJob => ({
  job: () => ({ body: `{"success":true,"job":{"id":"j","status":"completed","pagesTotal":${total}},"pages":null}` }),
  pages: (q, n) => {
    // Batches after the first `stallAfter` are never answered.
    if (n >= stallAfter) return { hang: true };
    const offset = Number(q.get('cursor') ?? 0);
    const count = Math.min(BATCH, total - offset);
    const next = offset + count < total ? `"${offset + count}"` : 'null';
    return { body: `{"pages":[${render(offset + 1, count)}],"next":${next}}` };
  },
});

/** Jobs of 20,000 pages whose first batch comes at once and whose later batches never come. */
const STALLING = ['stalls-SIGINT', 'stalls-SIGTERM', 'stalls-tty', 'stalls-twice'];
/** Jobs of 20,000 pages whose first batch never comes. */
const NEVER = 'stalls-at-once';
const NEVER_EXISTING = 'stalls-at-once-existing';

let svc: PagesServer;
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  svc = await startPagesServer({
    many: pagesOf(20_000, records),
    ...Object.fromEntries(STALLING.map((id) => [id, pagesOf(20_000, records, 1)])),
    [NEVER]: pagesOf(20_000, records, 0),
    [NEVER_EXISTING]: pagesOf(20_000, records, 0),
  });
  tmp = tempDir('crawl-pages-signals-');
});
afterAll(async () => {
  tmp.cleanup();
  await svc.close();
});

const HIDE = '\u001b[?25l';
const SHOW = '\u001b[?25h';
/** The second batch has been asked for (and will never come). */
const secondBatch = (id: string) => (): boolean => svc.seen.filter((q) => q.url.startsWith(`/api/crawl/${id}/pages`)).length >= 2;

describe('--output to a file, interrupted midway', () => {
  // The run can only end through the interrupt: a run that ignored it would time out (`timedOut`).
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it.concurrent(`${signal}: exit ${code}, the file holds whole records, in order`, async ({ expect }) => {
      const id = `stalls-${signal}`;
      const file = join(tmp.dir, `${id}.ndjson`);
      const r = await runCli(['job', 'pages', id, '--output', file], {
        env: svc.env,
        onSpawn: (child) => void waitFor(secondBatch(id), 10_000, 'the second batch').then(() => child.kill(signal)),
      });
      expect(r.timedOut).toBe(false);
      expect(r.code).toBe(code);
      expect(r.stdout).toBe('');
      expectInterruptedExport(expect, file, 20_000, r.stderr);
    });
  }

  it.concurrent('before the first record came: the file is empty, and the line says so in words', async ({ expect }) => {
    const file = join(tmp.dir, `${NEVER}.ndjson`);
    const firstBatch = (): boolean => svc.seen.some((q) => q.url.startsWith(`/api/crawl/${NEVER}/pages`));
    const r = await runCli(['job', 'pages', NEVER, '--output', file], {
      env: svc.env,
      onSpawn: (child) => void waitFor(firstBatch, 10_000, 'the first batch').then(() => child.kill('SIGTERM')),
    });
    expect(r.code).toBe(143);
    expect(r.stderr).toBe(`crawl: interrupted before the first record came: ${file} is empty\n`);
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it.concurrent('before the first record came, a file that was there is left as it was', async ({ expect }) => {
    const file = join(tmp.dir, `${NEVER_EXISTING}.ndjson`);
    writeFileSync(file, '{"kept":1}\n{"kept":2}\n');
    const firstBatch = (): boolean => svc.seen.some((q) => q.url.startsWith(`/api/crawl/${NEVER_EXISTING}/pages`));
    const r = await runCli(['job', 'pages', NEVER_EXISTING, '--output', file], {
      env: svc.env,
      onSpawn: (child) => void waitFor(firstBatch, 10_000, 'the first batch').then(() => child.kill('SIGINT')),
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toBe(`crawl: interrupted before the first record came: ${file} was left as it was\n`);
    expect(readFileSync(file, 'utf8')).toBe('{"kept":1}\n{"kept":2}\n');
  });

  it.concurrent('on a terminal: exit 130, the progress line ends and the cursor comes back', async ({ expect }) => {
    const id = 'stalls-tty';
    const file = join(tmp.dir, `${id}.ndjson`);
    const r = await runCli(['job', 'pages', id, '--output', file], {
      env: svc.env,
      tty: true,
      onSpawn: (child, out) => {
        void waitFor(() => secondBatch(id)() && out.stdout().includes('Writing'), 10_000, 'the progress line').then(() => child.kill('SIGINT'));
      },
    });
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(130);
    expect(r.stdout.includes(HIDE) && r.stdout.lastIndexOf(SHOW) > r.stdout.lastIndexOf(HIDE)).toBe(true);
    everyLineJson(readFileSync(file, 'utf8'));
  });
});

describe('two SIGTERMs back to back (GNU `timeout` signals crawl, then its process group)', () => {
  // The signals go through the wiring src/main.ts uses, to the signal-exit module on the run's fake
  // clock; the exit is recorded with what stderr held at that moment.
  it('the second delivered from the handler of the first: the exit still comes after the line that says what the file holds', async ({ expect }) => {
    const id = 'stalls-twice';
    const file = join(tmp.dir, `${id}.ndjson`);
    const clock = fakeClock();
    const guard = new Guard(() => clock.now());
    let stderrNow = (): string => '';
    const exits: Array<{ code: number; stderr: string }> = [];
    const signals = signalExit({ guard, clock, settleStdout: async () => undefined, exit: (code) => void exits.push({ code, stderr: stderrNow() }) });
    const host = new EventEmitter();
    listenForSignals(signals, { os: 'linux' }, (name, listener) => void host.on(name, listener));
    // Before anything else runs, as when Node is handed both signals in one turn of its loop.
    host.once('SIGTERM', () => host.emit('SIGTERM'));
    const r = await crawl(['job', 'pages', id, '--output', file], {
      env: svc.env,
      clock,
      signal: signals.interrupt,
      guard,
      onStreams: (streams) => {
        stderrNow = () => streams.stderrText();
        void waitFor(secondBatch(id), 10_000, 'the second batch').then(() => host.emit('SIGTERM'));
      },
    });
    expect(r.code).toBe(143);
    expectInterruptedExport(expect, file, 20_000, r.stderr);
    // The run has ended on its own; whatever exit the signals still make comes after the report's grace.
    await clock.advance(GRACE_MS);
    expect(exits).toEqual([{ code: 143, stderr: r.stderr }]);
  });
});

describe('two SIGTERMs while the output file is being created', () => {
  it('the exit is held from before the file exists, so no signal can leave it empty with nothing said', async ({ expect }) => {
    const file = join(tmp.dir, 'held-before-open.ndjson');
    const clock = fakeClock();
    const existedAtHold: boolean[] = [];
    // The guard src/main.ts hands the run, noting whether the file was there when the hold came.
    class Observed extends Guard {
      override holdOnceAborted(signal: AbortSignal): () => void {
        existedAtHold.push(existsSync(file));
        return super.holdOnceAborted(signal);
      }
    }
    const guard = new Observed(() => clock.now());
    const signals = signalExit({ guard, clock, settleStdout: async () => undefined, exit: () => undefined });
    const r = await crawl(['job', 'pages', 'many', '--output', file], { env: svc.env, clock, signal: signals.interrupt, guard });
    expect(r.code).toBe(0);
    expect(existedAtHold).toEqual([false]);
  });
});

describe('--output to what is not a FIFO', () => {
  it.concurrent('/dev/null and a regular file still work', async ({ expect }) => {
    const devNull = await runCli(['job', 'pages', 'many', '--output', '/dev/null'], { env: svc.env });
    expect([devNull.code, devNull.stderr]).toEqual([0, '']);
    const file = join(tmp.dir, 'plain.ndjson');
    const plain = await runCli(['job', 'pages', 'many', '--output', file], { env: svc.env });
    expect([plain.code, plain.stderr]).toEqual([0, '']);
    expect(ndjson(readFileSync(file, 'utf8'))).toHaveLength(20_000);
  });
});
