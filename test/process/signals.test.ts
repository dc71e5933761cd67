// Contract (spawned): signals to a real crawl process. The process adapter (src/main.ts) turns
// SIGINT / SIGTERM into 130 / 143; after a signal it forces the exit 2 s later, or at once on a
// second Ctrl-C, but never while a critical section is open (a key not yet stored, a config write,
// a POST or DELETE on the wire), and by a 10 s hard limit only once such a request has settled.
// What each command does with the interrupt is tested in this process (test/app/interrupt.test.ts,
// keys-interrupt-mutation, test/commands/keys/rotate.test.ts); here, what the process itself does.
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runCli, tempDir, waitFor } from '../support/harness.js';
import { calls, configProfile, expectRotationStoppedAfterStoring, fullKeysIn, keyStatus } from '../support/keys.js';
import { holdConfigLock } from '../support/local-faults.js';
import { expectInterruptedExport } from '../support/pages-server.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-contract-signals-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

const KEY_LINE = /^crk_[A-Za-z0-9]{20,}\n$/;

describe('a signal while job pages writes a file', () => {
  // SIGHUP is what a closed terminal (or console window, on Windows) sends: handled as SIGTERM, not
  // Node's default death by the signal. Ctrl-Break (SIGBREAK) exists on Windows only: delivered
  // through the same wiring with the platform given, in test/app/signal-exit.test.ts. Two SIGTERMs
  // back to back are what GNU `timeout` and CI runners send (to crawl, then to its group); whether
  // Node gets them as one or two depends on the scheduler: the second arriving before the message
  // is made is made to happen in test/commands/job/pages-signals.test.ts.
  it.concurrent.for([
    ['SIGINT', 130, ['SIGINT']],
    ['SIGTERM', 143, ['SIGTERM']],
    ['SIGHUP', 143, ['SIGHUP']],
    ['SIGTERM twice', 143, ['SIGTERM', 'SIGTERM']],
  ] as Array<[string, number, NodeJS.Signals[]]>)('%s: exit %i, the file holds whole records, in order, and the message says how many', async ([name, code, signals], { expect }) => {
    const id = `slow-out-${name.replace(' ', '-')}`;
    fx.sandbox.addJob({ id, status: 'completed', pagesTotal: 20_000 });
    // The first batch comes at once, the later ones never: only the signal ends the run.
    fx.sandbox.inject({ path: `^/api/crawl/${id}/pages`, kind: 'hang', skip: 1 });
    const file = join(tmp.dir, `${id}.ndjson`);
    const mark = fx.sandbox.requests.length;
    const waiting = (): boolean =>
      calls(fx.sandbox, mark).filter((c) => c.startsWith(`GET /api/crawl/${id}/pages`)).length >= 2 && (statSync(file, { throwIfNoEntry: false })?.size ?? 0) > 0;
    const r = await runCli(['job', 'pages', id, '--output', file], {
      process: true,
      env: fx.env,
      onSpawn: (child) => void waitFor(waiting, 10_000, 'the second batch').then(() => signals.forEach((signal) => child.kill(signal))),
    });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(code);
    expect(r.stdout).toBe('');
    // Said by the command: it ended on the interrupt, not by the forced exit.
    expectInterruptedExport(expect, file, 20_000, r.stderr);
  });
});

describe('a request that changes something, answered after the signal', () => {
  // Past the 10 s hard limit too: test/app/signal-exit.test.ts, on a fake clock.
  it.concurrent('the process waits for the answer, past the 2 s forced exit: the key is handed over, the DELETE reported', async ({ expect }) => {
    // A sandbox of its own: the holds below are for these two runs alone.
    const own = await sandboxFixture({ seed: false });
    try {
      // keys create: the POST is answered 3.5 s after it arrives (its --timeout is 30 s).
      own.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'latency', ms: 3500, times: 1 });
      // keys revoke: the first DELETE is answered 3 s after it arrives; the second must never be sent.
      const a = own.sandbox.addKey('a');
      const b = own.sandbox.addKey('b');
      own.sandbox.inject({ method: 'DELETE', path: `/api/keys/${a.id}`, kind: 'latency', ms: 3000, times: 1 });
      const signalAt = (call: string) => (child: ChildProcess): void =>
        void waitFor(() => calls(own.sandbox).includes(call), 15_000, call).then(() => child.kill('SIGINT'));
      const [create, revoke] = await Promise.all([
        runCli(['keys', 'create', 'patient', '--timeout', '30'], { process: true, env: own.env, timeoutMs: 30_000, onSpawn: signalAt('POST /api/keys') }),
        runCli(['keys', 'revoke', a.id, b.id, '--yes'], { process: true, env: own.env, onSpawn: signalAt(`DELETE /api/keys/${a.id}`) }),
      ]);

      expect(create.timedOut).toBe(false);
      expect(create.code).toBe(130);
      expect(create.stdout).toMatch(KEY_LINE);
      expect(await keyStatus(own.sandbox, create.stdout.trim())).toBe(200);
      expect(create.stderr).toMatch(/crawl: interrupted after the key was created: it was handed over first \(on stdout\)\n$/);
      expect(fullKeysIn(create.stderr)).toEqual([]);

      expect(revoke.code).toBe(130);
      expect(revoke.stderr).toContain(`Revoked key "a" (${a.id}`);
      expect(calls(own.sandbox).filter((c) => c.startsWith('DELETE'))).toEqual([`DELETE /api/keys/${a.id}`]);
      expect([await keyStatus(own.sandbox, a.key), await keyStatus(own.sandbox, b.key)]).toEqual([401, 200]);
    } finally {
      await own.close();
    }
  }, 40_000);
});

describe('a key being stored holds the exit', () => {
  it.concurrent('keys rotate, Ctrl-C (twice) while storing waits on another writer past the 2 s forced exit: the key is stored, exit 130', async ({ expect }) => {
    const old = fx.sandbox.addKey('slow-store');
    const profile = configProfile(fx.sandbox, old.key);
    // Another crawl process is writing the config: the rotation has to wait for it at step 4.
    const release = holdConfigLock(profile.file);
    try {
      let interruptedAt = 0;
      const r = await runCli(['keys', 'rotate', '--yes'], {
        process: true,
        env: { ...fx.env, ...profile.env },
        onSpawn: (child, out) => {
          void (async () => {
            await waitFor(() => out.stderr().includes('waiting for another crawl process'), 10_000, 'the wait for the lock');
            child.kill('SIGINT');
            interruptedAt = Date.now();
            // Real time on purpose: what is tested is the process outliving its forced exit.
            await waitFor(() => Date.now() - interruptedAt > 1000, 5000, 'a second');
            child.kill('SIGINT');
            // Past the forced exit of a plain interrupt (2 s): the process must still be there.
            await waitFor(() => Date.now() - interruptedAt > 2500, 5000, 'the forced exit time');
            release();
          })();
        },
      });
      expect(Date.now() - interruptedAt).toBeGreaterThan(2500);
      await expectRotationStoppedAfterStoring(expect, fx.sandbox, profile.file, old.key, r);
    } finally {
      release();
      profile.cleanup();
    }
  });
});
