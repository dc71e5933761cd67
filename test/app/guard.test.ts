// Ctrl-C or SIGTERM while a request that changes something is on the wire, in this process (the
// interrupt is what src/main.ts makes of the signal): the HTTP layer reads its answer to the end
// (bounded by --timeout), so what the service did is known. `keys create` hands the key over
// (stdout, --save, --output-file) and exits 130/143; `keys rotate` takes its "nothing lost" path;
// `keys revoke` finishes the DELETE it sent and sends no other. An interrupt that comes before a
// request is sent keeps it from being sent. An answer that comes after the forced exit and the
// hard limit of a real process is in test/process/signals.test.ts.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Guard } from '../../src/app/guard.js';
import { runCli } from '../support/harness.js';
import { fakeClock } from '../support/fake-clock.js';
import { activeKeys, calls, configProfile, fullKeysIn, keyStatus, storedKey } from '../support/keys.js';
import { onArrival, sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fx: SandboxFixture;
beforeEach(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterEach(() => fx.close());

const KEY_LINE = /^crk_[A-Za-z0-9]{20,}\n$/;

/**
 * Interrupts the run (`signal`: 130 or 143) as the `nth` request `call` arrives at the sandbox,
 * before the sandbox reads or answers it: the interrupt is there, whatever the load, while the
 * request is on the wire; then does `after`, if given. (`from`: the requests before the run,
 * which are not counted.)
 */
function signalAt(signal: NodeJS.Signals, call: string, from: number, nth = 1, after?: () => void) {
  expect(fx.sandbox.requests.length).toBe(from);
  let seen = 0;
  return (child: ChildProcess): void =>
    onArrival(
      fx.sandbox,
      (request) => `${request.method} ${request.url}` === call && ++seen === nth,
      () => {
        child.kill(signal);
        after?.();
      },
    );
}

/**
 * The service holds its answer to the next POST /api/keys this long. The interrupt comes as the
 * request arrives: the hold only keeps the answer from racing the interrupt's handling.
 */
const HOLD_MS = 100;
const holdPost = (ms = HOLD_MS): void => fx.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'latency', ms, times: 1 });

describe('keys create, interrupted while the POST is out', () => {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${signal}: the answer is read, the key printed alone on stdout, exit ${code}`, async () => {
      holdPost();
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'create', 'interrupted'], { env: fx.env, onSpawn: signalAt(signal, 'POST /api/keys', before) });
      expect(r.code).toBe(code);
      expect(r.stdout).toMatch(KEY_LINE);
      expect(await keyStatus(fx.sandbox, r.stdout.trim())).toBe(200);
      expect(r.stderr).toMatch(/^Created key "interrupted" \(prefix crk_\w+\)\n/);
      expect(r.stderr).toMatch(/crawl: interrupted after the key was created: it was handed over first \(on stdout\)\n$/);
      expect(fullKeysIn(r.stderr)).toEqual([]);
    });
  }

  it('--save and --output-file: both hold the key', async () => {
    holdPost();
    const out = join(fx.configDir, 'int.key');
    const cfg = join(fx.configDir, 'cfg-save');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'create', 'saved', '--save', '--output-file', out], {
      env: { ...fx.env, CRAWL_CONFIG_DIR: cfg },
      onSpawn: signalAt('SIGINT', 'POST /api/keys', before),
    });
    expect(r.code).toBe(130);
    // Two destinations: the key is in both, and not on stdout.
    expect(r.stdout).toBe('');
    const key = readFileSync(out, 'utf8').trim();
    expect(JSON.parse(readFileSync(join(cfg, 'config.json'), 'utf8')).profiles.default['api-key']).toBe(key);
    expect(r.stderr).toMatch(/interrupted after the key was created: it was handed over first \(in .*int\.key and in the config file/);
  });

  it('--json: the service body on stdout, one JSON error line with exit code 130 on stderr', async () => {
    holdPost();
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'create', 'json', '--json'], { env: fx.env, onSpawn: signalAt('SIGINT', 'POST /api/keys', before) });
    expect(r.code).toBe(130);
    const body = JSON.parse(r.stdout);
    expect(await keyStatus(fx.sandbox, body.key)).toBe(200);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { message: 'interrupted after the key was created: it was handed over first (on stdout)', httpStatus: null, exitCode: 130 },
    });
  });

  it('an answer slower than --timeout after the interrupt: exit 130, and it says a key may exist and where to look', async () => {
    // The answer would come after 3 s; the --timeout of 0.3 s passes on the run's clock as the
    // interrupt comes.
    holdPost(3000);
    const before = fx.sandbox.requests.length;
    const clock = fakeClock();
    const onSpawn = signalAt('SIGINT', 'POST /api/keys', before, 1, () => void clock.advance(300));
    const r = await runCli(['keys', 'create', 'slow', '--timeout', '0.3'], { env: fx.env, clock, onSpawn });
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^crawl: interrupted while creating the key, and its answer was lost: timed out after 0\.3 s waiting for POST \/api\/keys; a key may have been created\nhint: check with `crawl keys list`/);
  });
});

describe('keys rotate, interrupted while the POST is out', () => {
  it('config: the created key is printed once (not stored unchecked), the old key stays (exit 130)', async () => {
    const ci = fx.sandbox.addKey('ci');
    const profile = configProfile(fx.sandbox, ci.key);
    holdPost();
    try {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'rotate', '--yes'], { env: { ...fx.env, ...profile.env }, onSpawn: signalAt('SIGINT', 'POST /api/keys', before) });
      expect(r.code).toBe(130);
      expect(r.stdout).toMatch(KEY_LINE);
      expect(r.stderr).toMatch(/step 3 of 5 \(check that the service accepts the new key\): interrupted\. Done: created the new key .*printed on stdout: it is its only copy/);
      expect(r.stderr).toMatch(/The old key "ci" \(key_\w+\) is still active and still stored\./);
      expect(calls(fx.sandbox, before)).toEqual(['GET /api/keys', 'POST /api/keys']);
      expect(storedKey(profile.file)).toBe(ci.key);
      expect([await keyStatus(fx.sandbox, ci.key), await keyStatus(fx.sandbox, r.stdout.trim())]).toEqual([200, 200]);
      expect(fullKeysIn(r.stderr)).toEqual([]);
    } finally {
      profile.cleanup();
    }
  });

  it('--output-file, SIGTERM: the key is in the file, the message says so (exit 143)', async () => {
    const ci = fx.sandbox.addKey('ci');
    holdPost();
    const out = join(fx.configDir, 'rotated.key');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes', '--output-file', out], { env: { ...fx.env, CRAWL_API_KEY: ci.key }, onSpawn: signalAt('SIGTERM', 'POST /api/keys', before) });
    expect(r.code).toBe(143);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Stored the new key in ${out}`);
    expect(r.stderr).toMatch(/step 3 of 5 .*: interrupted\./);
    expect(await keyStatus(fx.sandbox, readFileSync(out, 'utf8').trim())).toBe(200);
    expect(await keyStatus(fx.sandbox, ci.key)).toBe(200);
  });

  it('Ctrl-C during step 1, before the POST: no POST is sent at all, exit 130', async () => {
    const ci = fx.sandbox.addKey('ci');
    const profile = configProfile(fx.sandbox, ci.key);
    const keysBefore = (await activeKeys(fx.sandbox, fx.sandbox.key)).length;
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'latency', ms: HOLD_MS, times: 1 });
    try {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'rotate', '--yes'], { env: { ...fx.env, ...profile.env }, onSpawn: signalAt('SIGINT', 'GET /api/keys', before) });
      expect(r.code).toBe(130);
      expect(calls(fx.sandbox, before)).toEqual(['GET /api/keys']);
      expect((await activeKeys(fx.sandbox, fx.sandbox.key)).length).toBe(keysBefore);
      expect(r.stdout).toBe('');
    } finally {
      profile.cleanup();
    }
  });
});

describe('keys revoke, interrupted while a DELETE is out', () => {
  it('that DELETE completes and is reported; the next one is never sent (exit 130)', async () => {
    const a = fx.sandbox.addKey('a');
    const b = fx.sandbox.addKey('b');
    fx.sandbox.inject({ method: 'DELETE', path: `/api/keys/${a.id}`, kind: 'latency', ms: HOLD_MS, times: 1 });
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'revoke', a.id, b.id, '--yes'], { env: fx.env, onSpawn: signalAt('SIGINT', `DELETE /api/keys/${a.id}`, before) });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(`Revoked key "a" (${a.id}`);
    expect(calls(fx.sandbox, before).filter((c) => c.startsWith('DELETE'))).toEqual([`DELETE /api/keys/${a.id}`]);
    expect([await keyStatus(fx.sandbox, a.key), await keyStatus(fx.sandbox, b.key)]).toEqual([401, 200]);
  });
});

describe('the hold, on a clock', () => {
  // Guard.exitHoldMs, on a fake clock: every value exact.
  it('holds while a request that changes something is on the wire, until its deadline plus the margin, then the margin after it settled', async () => {
    const clock = fakeClock(1_000_000);
    const guard = new Guard(clock.now);
    const start = clock.now();
    expect(guard.exitHoldMs(1000)).toBe(0);
    const settle = guard.mutationInFlight(start + 30_000);
    expect(guard.exitHoldMs(1000)).toBe(31_000);
    const settleOther = guard.mutationInFlight(start + 5_000);
    expect(guard.exitHoldMs(1000)).toBe(31_000);
    await clock.advance(2_000);
    expect(guard.exitHoldMs(1000)).toBe(29_000);
    settle();
    await clock.advance(250);
    settleOther();
    settleOther(); // settling twice changes nothing
    // The margin runs from the last request that settled.
    expect(guard.exitHoldMs(1000)).toBe(1000);
    await clock.advance(400);
    expect(guard.exitHoldMs(1000)).toBe(600);
    expect(guard.exitHoldMs(1000, clock.now() + 600)).toBe(0);
    await clock.advance(601);
    expect(guard.exitHoldMs(1000)).toBe(0);
  });
});
