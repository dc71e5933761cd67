// The rotation flow (src/api/rotation.ts) on its own, against the sandbox over real HTTP: a fault
// at each step, for each kind of target, and what the result then says. The last block runs the
// same faults through both front-ends (`crawl keys rotate --to-command` and the client's
// `keys.rotate({ store })`) and checks they leave the keys in the same state.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listKeys } from '../../src/api/keys.js';
import { findOldKey, rotate, type KeyDestination, type KeyHome, type OldKey, type RotationContext, type RotationResult, type RotationStep, type RotationTarget } from '../../src/api/rotation.js';
import { makeClient } from '../../src/client/client.js';
import { RotationError } from '../../src/client/index.js';
import { InterruptedError } from '../../src/errors.js';
import { HttpClient } from '../../src/http/client.js';
import { HttpStatusError } from '../../src/http/errors.js';
import { StoreCommandError } from '../../src/commands/keys/lib/key-destinations.js';
import { runCli, tempDir } from '../support/harness.js';
import { activeKeys, calls, fullKeysIn, keyStatus } from '../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { fakeClock } from '../support/fake-clock.js';

let fx: SandboxFixture;
let old: { id: string; key: string; keyPrefix: string; name: string };
beforeEach(async () => {
  fx = await sandboxFixture({ seed: false });
  old = fx.sandbox.addKey('ci');
});
afterEach(() => fx.close());

/** A flow context on real HTTP clients (one a key, as the front-ends keep them), recording each step reported. */
function context(controller = new AbortController()): RotationContext & { steps: RotationStep[]; secrets: string[]; controller: AbortController } {
  const clients = new Map<string, HttpClient>();
  const clock = fakeClock();
  const steps: RotationStep[] = [];
  const secrets: string[] = [];
  return {
    steps,
    secrets,
    controller,
    signal: controller.signal,
    http(key = old.key, options = {}) {
      return Promise.resolve(client(key, options));
    },
    secret: (key) => void secrets.push(key),
    report: (step) => void steps.push(step),
  };

  function client(key: string, options: { evenIfAborted?: boolean }): HttpClient {
    const id = `${options.evenIfAborted ? 'after' : 'live'}\u0000${key}`;
    let made = clients.get(id);
    if (!made) {
      made = new HttpClient({
        baseUrl: new URL(fx.sandbox.url),
        apiKey: key,
        timeoutMs: 10_000,
        allowHttp: true,
        userAgent: 'rotation-test',
        interrupt: options.evenIfAborted ? undefined : controller.signal,
        clock,
      });
      clients.set(id, made);
    }
    return made;
  }
}

/** A home that keeps the key in memory, as the config file or a keyring entry would. */
/**
 * A home that keeps the key in memory, as the config file or a keyring entry would.
 * `failWrite`: the write fails (after keeping the key, with `keepThenFail`: a store command that
 * stored it and then exited non-zero); `failRead`: reading it fails too (a key-command that fails).
 */
function memoryHome(
  initial: string,
  options: { kind?: KeyHome['kind']; failWrite?: Error; keepThenFail?: boolean; failRead?: Error; ignoreWrite?: boolean; onWrite?: () => unknown } = {},
): KeyHome & { value: string; writes: Array<{ replaces: string | undefined }>; reads: number } {
  const home = {
    value: initial,
    writes: [] as Array<{ replaces: string | undefined }>,
    reads: 0,
    ...(options.kind === undefined ? {} : { kind: options.kind }),
    describe: () => 'the test home',
    read: () => {
      home.reads++;
      return options.failRead ? Promise.reject(options.failRead) : Promise.resolve(home.value);
    },
    write: async (key: string, _signal: AbortSignal, write: { replaces?: string } = {}) => {
      home.writes.push({ replaces: write.replaces });
      await options.onWrite?.();
      if (options.keepThenFail) home.value = key;
      if (options.failWrite) throw options.failWrite;
      if (write.replaces !== undefined && home.value !== write.replaces) throw new Error('the home holds another key');
      if (!options.ignoreWrite) home.value = key;
    },
  };
  return home;
}

/** `holds`: a store that can be read (the client's read()): what it answers once a write failed. */
function destination(kind: KeyDestination['kind'], options: { fail?: Error; holds?: () => Promise<string | undefined> } = {}): KeyDestination & { got: string[] } {
  const got: string[] = [];
  return {
    kind,
    got,
    describe: () => `a ${kind} destination`,
    write: (key) => {
      got.push(key);
      return options.fail ? Promise.reject(options.fail) : Promise.resolve();
    },
    ...(options.holds === undefined ? {} : { read: options.holds }),
  };
}

async function oldKey(): Promise<OldKey> {
  const found = findOldKey((await listKeys(await context().http())).keys, old.key);
  if (found.kind !== 'found') throw new Error(`the test key is ${found.kind}`);
  return found.old;
}

async function run(ctx: RotationContext, target: RotationTarget, keepOld = false): Promise<RotationResult> {
  return rotate(ctx, { old: await oldKey(), name: 'ci (rotated)', target, keepOld });
}

const deletes = (from: number): string[] => calls(fx.sandbox, from).filter((c) => c.startsWith('DELETE'));
/** The check of the new key is the second GET /api/keys (the first is step 1, in oldKey()). */
const refuseCheck = (): void => fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'status', status: 401, skip: 1, times: 1 });

describe('the rotation flow, every step done', () => {
  it('reports create, verify, store, revoke in order; the home holds the new key, written over the old one; the old key is revoked with the new one', async () => {
    const ctx = context();
    const home = memoryHome(old.key);
    const r = await run(ctx, { home, replaces: old.key });
    expect(ctx.steps).toEqual(['create', 'verify', 'store', 'revoke']);
    expect(r.failure).toBeUndefined();
    expect(r.place).toBe('stored');
    expect(r.done).toEqual({ create: true, verify: true, store: true, revoke: true });
    const fresh = r.created?.secret() ?? '';
    expect(home.value).toBe(fresh);
    expect(home.writes).toEqual([{ replaces: old.key }]);
    expect(ctx.secrets).toEqual([fresh]);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
    expect(await keyStatus(fx.sandbox, fresh)).toBe(200);
    expect(fx.sandbox.requests.filter((q) => q.method === 'DELETE').map((q) => q.url)).toEqual([`/api/keys/${old.id}`]);
    // The key is never a property: a result logged or serialised does not show it.
    expect(fullKeysIn(JSON.stringify(r))).toEqual([]);
    expect(r.created?.id).toMatch(/^key_/);
  });

  it('--keep-old: create, verify, store; no DELETE; the old key stays active', async () => {
    const ctx = context();
    const before = fx.sandbox.requests.length;
    const r = await run(ctx, { destination: destination('store') }, true);
    expect(ctx.steps).toEqual(['create', 'verify', 'store']);
    expect(r.failure).toBeUndefined();
    expect(r.done.revoke).toBe(false);
    expect(deletes(before)).toEqual([]);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });
});

describe('step 2 (create) fails', () => {
  it('nothing was made: no key to keep, nothing revoked, the home untouched', async () => {
    fx.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'status', status: 500 });
    const ctx = context();
    const home = memoryHome(old.key);
    const before = fx.sandbox.requests.length;
    const r = await run(ctx, { home, replaces: old.key });
    expect(r.failure).toMatchObject({ step: 'create', interrupted: false });
    expect(r.failure?.error).toBeInstanceOf(HttpStatusError);
    expect(r.place).toBe('none');
    expect(ctx.steps).toEqual([]);
    expect(home.writes).toEqual([]);
    expect(deletes(before)).toEqual([]);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });
});

describe('step 3 (verify) fails: the service refuses the new key', () => {
  it('a home: the unchecked key does not replace the working one; it is handed back, active', async () => {
    refuseCheck();
    const ctx = context();
    const home = memoryHome(old.key);
    const before = fx.sandbox.requests.length;
    const r = await run(ctx, { home, replaces: old.key });
    expect(r.failure).toMatchObject({ step: 'verify' });
    expect(r.place).toBe('unstored');
    expect(home.writes).toEqual([]);
    expect(home.value).toBe(old.key);
    expect(deletes(before)).toEqual([]);
    expect(await keyStatus(fx.sandbox, r.created?.secret() ?? '')).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });

  it('a store: never given the key; the new key is revoked again, found by its prefix with the old key', async () => {
    refuseCheck();
    const ctx = context();
    const store = destination('store');
    const before = fx.sandbox.requests.length;
    const r = await run(ctx, { destination: store });
    expect(store.got).toEqual([]);
    expect(r.place).toBe('withdrawn');
    expect(r.withdrawal).toEqual({ revoked: true });
    expect(deletes(before)).toEqual([`DELETE /api/keys/${r.created?.id}`]);
    expect(await keyStatus(fx.sandbox, r.created?.secret() ?? '')).toBe(401);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });

  it('a new place (file, stdout): it replaces nothing, so the key goes there all the same, and store is reported', async () => {
    refuseCheck();
    const ctx = context();
    const place = destination('new');
    const r = await run(ctx, { destination: place });
    expect(r.failure).toMatchObject({ step: 'verify' });
    expect(ctx.steps).toEqual(['create', 'store']);
    expect(place.got).toEqual([r.created?.secret()]);
    expect(r.place).toBe('stored');
    expect(r.done).toEqual({ create: true, verify: false, store: true, revoke: false });
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });

  it('interrupted before the check: the same path, marked interrupted', async () => {
    const ctx = context();
    const home = memoryHome(old.key);
    const r = await rotate({ ...ctx, report: (step) => step === 'create' && ctx.controller.abort(new InterruptedError()) }, { old: await oldKey(), name: 'n', target: { home, replaces: old.key }, keepOld: false });
    expect(r.failure).toMatchObject({ step: 'verify', interrupted: true });
    expect(r.failure?.error).toBeInstanceOf(InterruptedError);
    expect(r.place).toBe('unstored');
    expect(home.value).toBe(old.key);
  });
});

describe('step 4 (store) fails', () => {
  it('a home whose write fails: the key is handed back, the old one still stored and active', async () => {
    const ctx = context();
    const home = memoryHome(old.key, { failWrite: new Error('disk full') });
    const r = await run(ctx, { home, replaces: old.key });
    expect(r.failure).toMatchObject({ step: 'store' });
    expect(r.place).toBe('unstored');
    expect(r.withdrawal).toBeUndefined();
    // A keyring or the config file is not asked again (a locked keyring would prompt again).
    expect(r.asked).toBeUndefined();
    expect(home.reads).toBe(0);
    expect(home.value).toBe(old.key);
    expect(await keyStatus(fx.sandbox, r.created?.secret() ?? '')).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });

  it('a home that does not read the key back: reported, not revoked, handed back (the home may hold it)', async () => {
    const ctx = context();
    const home = memoryHome(old.key, { ignoreWrite: true });
    const before = fx.sandbox.requests.length;
    const r = await run(ctx, { home, replaces: old.key });
    expect(r.failure).toMatchObject({ step: 'store' });
    expect((r.failure?.error as Error).message).toBe('the test home does not hold the new key after writing it');
    expect(r.place).toBe('unstored');
    expect(r.unattended).toBe(false);
    expect(deletes(before)).toEqual([]);
    expect(await keyStatus(fx.sandbox, r.created?.secret() ?? '')).toBe(200);
  });

  it('a home changed by someone else meanwhile (replaces no longer holds): not overwritten', async () => {
    const ctx = context();
    const home = memoryHome(old.key, { onWrite: () => (home.value = 'crk_' + 'z'.repeat(40)) });
    const r = await run(ctx, { home, replaces: old.key });
    expect(r.failure).toMatchObject({ step: 'store' });
    expect(home.value).toBe('crk_' + 'z'.repeat(40));
    expect(r.place).toBe('unstored');
  });

  describe('a command home (a secret manager) whose write fails is asked what it holds', () => {
    it('the old key: the new key is withdrawn (revoked again), and nothing is handed back', async () => {
      const ctx = context();
      const home = memoryHome(old.key, { kind: 'command', failWrite: new Error('key-store-command failed: it exited with status 1') });
      const before = fx.sandbox.requests.length;
      const r = await run(ctx, { home, replaces: old.key });
      expect(r.failure).toMatchObject({ step: 'store' });
      expect(r.asked).toEqual({ held: 'old', error: expect.objectContaining({ message: 'key-store-command failed: it exited with status 1' }) });
      expect(r.place).toBe('withdrawn');
      expect(r.withdrawal).toEqual({ revoked: true });
      expect(deletes(before)).toEqual([`DELETE /api/keys/${r.created?.id}`]);
      expect(await keyStatus(fx.sandbox, r.created?.secret() ?? '')).toBe(401);
      expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
      expect(home.value).toBe(old.key);
    });

    it('the new key (it stored it, then failed): the rotation goes on, the old key revoked', async () => {
      const ctx = context();
      const home = memoryHome(old.key, { kind: 'command', keepThenFail: true, failWrite: new Error('key-store-command failed: it exited with status 1') });
      const r = await run(ctx, { home, replaces: old.key });
      expect(r.failure).toBeUndefined();
      expect(r.asked).toMatchObject({ held: 'new' });
      expect(r.place).toBe('stored');
      expect(ctx.steps).toEqual(['create', 'verify', 'store', 'revoke']);
      expect(home.value).toBe(r.created?.secret());
      expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
      expect(await keyStatus(fx.sandbox, r.created?.secret() ?? '')).toBe(200);
    });

    it('no answer (key-command fails too): handed back, unattended, never revoked (the store may hold it)', async () => {
      const ctx = context();
      const home = memoryHome(old.key, { kind: 'command', failWrite: new Error('key-store-command failed'), failRead: new Error('key-command failed') });
      const before = fx.sandbox.requests.length;
      const r = await run(ctx, { home, replaces: old.key });
      expect(r.asked).toMatchObject({ held: 'unknown' });
      expect(r.place).toBe('unstored');
      expect(r.unattended).toBe(true);
      expect(r.withdrawal).toBeUndefined();
      expect(deletes(before)).toEqual([]);
      expect(await keyStatus(fx.sandbox, r.created?.secret() ?? '')).toBe(200);
      expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    });

    it('another key than either (someone else stored one meanwhile): no answer, handed back', async () => {
      const ctx = context();
      const home = memoryHome(old.key, { kind: 'command', failWrite: new Error('key-store-command failed'), onWrite: () => (home.value = 'crk_' + 'y'.repeat(40)) });
      const r = await run(ctx, { home, replaces: old.key });
      expect(r.asked).toMatchObject({ held: 'unknown' });
      expect(r.place).toBe('unstored');
    });
  });

  describe('a store that can be read (the client\'s read()), whose write fails', () => {
    it('it holds the old key: the new key is withdrawn', async () => {
      const r = await run(context(), { destination: destination('store', { fail: new Error('no'), holds: () => Promise.resolve(old.key) }), replaces: old.key });
      expect(r.asked).toMatchObject({ held: 'old' });
      expect(r.place).toBe('withdrawn');
      expect(await keyStatus(fx.sandbox, r.created?.secret() ?? '')).toBe(401);
      expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    });

    it('it holds the new key (it took it, then failed to say so): the rotation goes on', async () => {
      let got = '';
      const store = destination('store', { fail: new Error('timed out'), holds: () => Promise.resolve(got) });
      const r = await run(context(), { destination: { ...store, write: (key, signal) => ((got = key), store.write(key, signal)) }, replaces: old.key });
      expect(r.failure).toBeUndefined();
      expect(r.asked).toMatchObject({ held: 'new' });
      expect(r.done).toEqual({ create: true, verify: true, store: true, revoke: true });
      expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
    });

    it('no answer: handed back, active, never revoked (the store may hold it)', async () => {
      const before = fx.sandbox.requests.length;
      const r = await run(context(), { destination: destination('store', { fail: new Error('no'), holds: () => Promise.reject(new Error('unreadable')) }), replaces: old.key });
      expect(r.asked).toMatchObject({ held: 'unknown' });
      expect(r.place).toBe('unstored');
      expect(deletes(before)).toEqual([]);
      expect(await keyStatus(fx.sandbox, r.created?.secret() ?? '')).toBe(200);
    });
  });

  it('a store that refuses: the new key is revoked again with the old key; the old key still works', async () => {
    const ctx = context();
    const store = destination('store', { fail: new StoreCommandError('it exited with status 3') });
    const r = await run(ctx, { destination: store });
    expect(r.failure).toMatchObject({ step: 'store' });
    expect(r.failure?.error).toBeInstanceOf(StoreCommandError);
    expect(r.place).toBe('withdrawn');
    expect(await keyStatus(fx.sandbox, store.got[0] ?? '')).toBe(401);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });

  it('a store that refuses, and the key cannot be revoked again: handed back, active, with the reason', async () => {
    fx.sandbox.inject({ method: 'DELETE', path: '^/api/keys/', kind: 'status', status: 500 });
    const ctx = context();
    const r = await run(ctx, { destination: destination('store', { fail: new Error('no') }) });
    expect(r.place).toBe('unstored');
    expect(r.withdrawal).toMatchObject({ revoked: false, why: expect.stringMatching(/HTTP 500/) });
    expect(await keyStatus(fx.sandbox, r.created?.secret() ?? '')).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });

  it('a store, then the home: the store took it, the home did not: the store keeps it (not revoked), the result says so', async () => {
    const ctx = context();
    const store = destination('store');
    const home = memoryHome(old.key, { failWrite: new Error('locked') });
    const before = fx.sandbox.requests.length;
    const r = await run(ctx, { destination: store, home, replaces: old.key });
    expect(r.failure).toMatchObject({ step: 'store' });
    expect(r.destinationStored).toBe(true);
    expect(r.place).toBe('store-only');
    expect(deletes(before)).toEqual([]);
    expect(await keyStatus(fx.sandbox, store.got[0] ?? '')).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });

  it('interrupted while storing: the store finishes, then the flow stops before the old key is revoked', async () => {
    const controller = new AbortController();
    const ctx = context(controller);
    const home = memoryHome(old.key, { onWrite: () => controller.abort(new InterruptedError()) });
    const before = fx.sandbox.requests.length;
    const r = await run(ctx, { home, replaces: old.key });
    expect(r.failure).toMatchObject({ step: 'revoke', interrupted: true });
    expect(r.place).toBe('stored');
    expect(home.value).toBe(r.created?.secret());
    expect(deletes(before)).toEqual([]);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });
});

describe('step 5 (revoke) fails', () => {
  it('the DELETE fails: the new key is stored, the old one still active', async () => {
    fx.sandbox.inject({ method: 'DELETE', path: `/api/keys/${old.id}`, kind: 'status', status: 500, times: 1 });
    const ctx = context();
    const home = memoryHome(old.key);
    const r = await run(ctx, { home, replaces: old.key });
    expect(r.failure).toMatchObject({ step: 'revoke' });
    expect(r.place).toBe('stored');
    expect(ctx.steps).toEqual(['create', 'verify', 'store']);
    expect(home.value).toBe(r.created?.secret());
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });

  it('the old key was revoked by someone else while storing: the DELETE answers 404 and nothing else is revoked', async () => {
    const ctx = context();
    const revokedMeanwhile = (): Promise<unknown> => fetch(`${fx.sandbox.url}/api/keys/${old.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${fx.sandbox.key}` } }).then((res) => res.arrayBuffer());
    const home = memoryHome(old.key, { onWrite: revokedMeanwhile });
    const before = fx.sandbox.requests.length;
    const r = await run(ctx, { home, replaces: old.key });
    expect(r.failure).toMatchObject({ step: 'revoke' });
    expect(r.failure?.error).toMatchObject({ status: 404 });
    // The one DELETE after the other process's: no other key was revoked in its place.
    expect(deletes(before)).toEqual([`DELETE /api/keys/${old.id}`, `DELETE /api/keys/${old.id}`]);
    expect(await keyStatus(fx.sandbox, r.created?.secret() ?? '')).toBe(200);
  });
});

describe('the client reports the flow\'s steps', () => {
  it('onStep hears create, verify, store (after store() resolved) and revoke, in order', async () => {
    const heard: string[] = [];
    const client = makeClient({ baseUrl: fx.sandbox.url, apiKey: old.key }, { env: {}, clock: fakeClock(), nodeVersion: '20.0.0' });
    const rotation = await client.keys.rotate({
      store: () => {
        heard.push('store() called');
        return Promise.resolve();
      },
      onStep: (step) => heard.push(step),
    });
    await client.close();
    expect(heard).toEqual(['create', 'verify', 'store() called', 'store', 'revoke']);
    expect(rotation.old.revoked).toBe(true);
  });
});

describe('both front-ends: the same fault leaves the keys in the same state', () => {
  /** The step that stopped, how many new keys ("ci (rotated ...)") are active, and the old key's status. */
  type Outcome = { step: string; newKeysActive: number; oldKey: number };
  type Fault = { name: string; inject: () => void; storeFails: boolean };
  const faults: Fault[] = [
    { name: 'the service refuses the new key', inject: refuseCheck, storeFails: false },
    { name: 'the store refuses the key', inject: () => undefined, storeFails: true },
    { name: 'the old key cannot be revoked', inject: () => fx.sandbox.inject({ method: 'DELETE', path: `/api/keys/${old.id}`, kind: 'status', status: 500, times: 1 }), storeFails: false },
    {
      name: 'the store refuses and the new key cannot be revoked again',
      inject: () => fx.sandbox.inject({ method: 'DELETE', path: '^/api/keys/', kind: 'status', status: 500 }),
      storeFails: true,
    },
  ];
  const newKeysActive = async (): Promise<number> => (await activeKeys(fx.sandbox, fx.sandbox.key)).filter((k) => k.name.startsWith('ci (rotated')).length;
  const STEPS: Record<string, string> = { 3: 'verify', 4: 'store', 5: 'revoke' };

  it.each(faults)('$name', async (fault) => {
    // The client: the key in use is `old`; store() is the secret store.
    fault.inject();
    const client = makeClient({ baseUrl: fx.sandbox.url, apiKey: old.key }, { env: {}, clock: fakeClock(), nodeVersion: '20.0.0' });
    const error = await client.keys.rotate({ store: () => (fault.storeFails ? Promise.reject(new Error('refused')) : Promise.resolve()) }).catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(RotationError);
    const rotationError = error as RotationError;
    fx.sandbox.clearFaults();
    const viaClient: Outcome = { step: rotationError.step, newKeysActive: await newKeysActive(), oldKey: await keyStatus(fx.sandbox, old.key) };

    // The CLI, on a sandbox as it started: the key in use in CRAWL_API_KEY, a store command that keeps its stdin.
    fx.sandbox.reset();
    old = fx.sandbox.addKey('ci');
    fault.inject();
    const tmp = tempDir('crawl-rotation-both-');
    try {
      const config = join(tmp.dir, 'config');
      const command = `cat > '${join(tmp.dir, 'stdin')}'${fault.storeFails ? '; exit 1' : ''}`;
      const r = await runCli(['keys', 'rotate', '--yes', '--json', '--to-command', command], { env: { ...fx.env, CRAWL_API_KEY: old.key, CRAWL_CONFIG_DIR: config } });
      fx.sandbox.clearFaults();
      const message = (JSON.parse(r.stderr) as { error: { message: string } }).error.message;
      const step = /stopped at step (\d) of 5/.exec(message)?.[1] ?? '';
      const viaCli: Outcome = { step: STEPS[step] ?? `step ${step}`, newKeysActive: await newKeysActive(), oldKey: await keyStatus(fx.sandbox, old.key) };
      expect(viaCli).toEqual(viaClient);
      // A key nothing else holds is kept by each its own way: the client's error, the CLI's 0600 file.
      const rescued = existsSync(config) ? readdirSync(config).filter((f) => f.startsWith('unrevoked-key-')) : [];
      expect(rescued.length).toBe(rotationError.secret() === undefined ? 0 : 1);
      if (rescued[0]) expect(await keyStatus(fx.sandbox, readFileSync(join(config, rescued[0]), 'utf8').trim())).toBe(200);
      expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
    } finally {
      tmp.cleanup();
    }
  });
});
