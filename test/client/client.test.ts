// The Node client (`import { createClient } from '@webcrawl/cli'`) in the test process: real HTTP
// to the sandbox, a fake clock for every wait. test/process/package.test.ts runs the same API from
// the installed tarball.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient } from '../../src/client/client.js';
import { createClient, CrawlError, ExitCode, HttpStatusError, InterruptedError, RotationError, UsageError } from '../../src/client/index.js';
import type { ClientOptions, CrawlClient } from '../../src/client/types.js';
import type { Env } from '../../src/platform/env.js';
import { startSandbox, type EmbeddedSandbox } from '../../src/sandbox/public.js';
import { tempDir } from '../support/harness.js';
import { fakeClock, type FakeClock } from '../support/fake-clock.js';

let sb: EmbeddedSandbox;
const open: CrawlClient[] = [];

beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await sb.close();
});

function client(options: ClientOptions = {}, env: Env = {}, clock: FakeClock = fakeClock()): CrawlClient & { clock: FakeClock } {
  const made = makeClient({ baseUrl: sb.baseUrl, apiKey: sb.bootstrapKey, ...options }, { env, clock, nodeVersion: '20.0.0' });
  open.push(made);
  return Object.assign(made, { clock });
}

/** Everything the iterator gives, or the error it ends with. */
async function drain<T>(iterable: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of iterable) items.push(item);
    return { items, error: undefined };
  } catch (error) {
    return { items, error };
  }
}

/** A store() that is given the new key and rejects: `given()` is the key it was given. */
function refusingStore(message: string): { store: (key: string) => Promise<void>; given: () => string } {
  let given = '';
  return {
    store: async (key) => {
      given = key;
      throw new Error(message);
    },
    given: () => given,
  };
}

/** The rotation was rolled back: the old key still listed, the new one (`given`) not. */
async function expectRolledBack(c: CrawlClient, oldId: string, given: string): Promise<void> {
  const keys = await c.keys.list();
  expect(keys.some((k) => k.id === oldId)).toBe(true);
  expect(keys.some((k) => typeof k.keyPrefix === 'string' && given.startsWith(k.keyPrefix))).toBe(false);
}

describe('settings are resolved as the CLI resolves them', () => {
  it('from CRAWL_BASE_URL and CRAWL_API_KEY, or from the profile in the config file, or from options', async () => {
    const fromEnv = makeClient({}, { env: { CRAWL_BASE_URL: sb.baseUrl, CRAWL_API_KEY: sb.bootstrapKey }, clock: fakeClock(), nodeVersion: '20' });
    open.push(fromEnv);
    expect((await fromEnv.jobs.get('demo-small')).status).toBe('completed');

    const { dir, cleanup } = tempDir();
    try {
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { staging: { 'base-url': sb.baseUrl, 'api-key': sb.bootstrapKey } } }), { mode: 0o600 });
      const fromProfile = makeClient({ profile: 'staging' }, { env: { CRAWL_CONFIG_DIR: dir }, clock: fakeClock(), nodeVersion: '20' });
      open.push(fromProfile);
      expect(fromProfile.baseUrl).toBe(`${sb.baseUrl}/`);
      expect((await fromProfile.jobs.get('demo-errored')).status).toBe('errored');
      // An option wins over the environment, as a flag does.
      const wrong = makeClient({ apiKey: 'crk_wrong' }, { env: { CRAWL_BASE_URL: sb.baseUrl, CRAWL_API_KEY: sb.bootstrapKey }, clock: fakeClock(), nodeVersion: '20' });
      open.push(wrong);
      const error = await wrong.jobs.get('demo-small').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HttpStatusError);
      expect(error).toMatchObject({ status: 401, exitCode: ExitCode.auth });
      expect(String((error as Error).message)).not.toContain('crk_wrong');
    } finally {
      cleanup();
    }
  });

  it('no base URL: createClient throws a UsageError (exit 2); no key: the first request rejects with one', async () => {
    expect(() => createClient({ env: { CRAWL_CONFIG_DIR: '/nonexistent-crawl-dir' } })).toThrow(UsageError);
    const keyless = createClient({ baseUrl: sb.baseUrl, env: { CRAWL_CONFIG_DIR: '/nonexistent-crawl-dir' } });
    open.push(keyless);
    const before = sb.requests().length;
    await expect(keyless.jobs.get('demo-small')).rejects.toMatchObject({ exitCode: ExitCode.usage, message: 'no API key configured' });
    expect(sb.requests()).toHaveLength(before);
  });

  it('clear-text http to a remote host is refused unless allowHttp, as --allow-http', () => {
    expect(() => makeClient({ baseUrl: 'http://crawl.example.com' }, { env: {}, clock: fakeClock(), nodeVersion: '20' })).toThrow(/refusing to send the API key over plain http/);
    expect(() => makeClient({ baseUrl: 'http://crawl.example.com', allowHttp: true, apiKey: 'k' }, { env: {}, clock: fakeClock(), nodeVersion: '20' })).not.toThrow();
  });
});

describe('jobs', () => {
  it('get: the job with the fields the interface does not show; a missing job is an HttpStatusError with exit 3', async () => {
    sb.addJob({ id: 'extra-fields', status: 'completed', pagesTotal: 1, extra: { region: 'eu' } });
    const c = client();
    expect(await c.jobs.get('extra-fields')).toMatchObject({ id: 'extra-fields', status: 'completed', region: 'eu' });
    const error = await c.jobs.get('no-such-job').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toBeInstanceOf(CrawlError);
    expect(error).toMatchObject({ status: 404, exitCode: ExitCode.notFound, httpStatus: 404 });
  });

  it('watch: each change once, ending with the terminal state; the waits are the interval, on the clock', async () => {
    sb.addJob({ id: 'w1', status: 'running', pagesTotal: 3, pagesFinished: 0, advance: { perPoll: 1 } });
    const c = client();
    const { items, error } = await drain(c.jobs.watch('w1', { intervalMs: 500 }));
    expect(error).toBeUndefined();
    expect(items.map((j) => `${j.status}:${String(j.pagesFinished)}`)).toEqual(['running:1', 'running:2', 'completed:3']);
    expect(c.clock.sleeps).toEqual([500, 500]);
  });

  it('watch: transient failures are retried with backoff and reported through onRetry; maxWaitMs gives up with exit 7', async () => {
    sb.addJob({ id: 'w2', status: 'running', pagesTotal: 100, pagesFinished: 1, advance: { perPoll: 1 } });
    sb.inject({ path: '/api/crawl/w2', kind: 'status', status: 503, times: 2 });
    const c = client();
    const retries: number[] = [];
    const { items, error } = await drain(c.jobs.watch('w2', { intervalMs: 1000, maxWaitMs: 10_000, onRetry: (e) => retries.push(e.httpStatus ?? 0) }));
    expect(retries).toEqual([503, 503]);
    expect(items.length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(CrawlError);
    expect(error).toMatchObject({ exitCode: ExitCode.waitElapsed });
    expect((error as Error).message).toMatch(/^gave up waiting: the job is still running/);
    expect(c.clock.elapsed()).toBeLessThanOrEqual(10_000);
  });

  it('watch: an aborted signal ends it with an InterruptedError', async () => {
    sb.addJob({ id: 'w3', status: 'running', pagesTotal: 100, pagesFinished: 0 });
    const c = client();
    const stop = new AbortController();
    const seen: string[] = [];
    let error: unknown;
    try {
      for await (const job of c.jobs.watch('w3', { intervalMs: 1000, signal: stop.signal })) {
        seen.push(job.status);
        stop.abort();
      }
    } catch (e) {
      error = e;
    }
    expect(seen).toEqual(['running']);
    expect(error).toBeInstanceOf(InterruptedError);
  });

  it('pages: parsed, or each record as sent with raw; across batches and inline; limit stops early', async () => {
    const c = client();
    const small = await drain(c.jobs.pages('demo-small'));
    expect(small.items).toHaveLength(42);
    expect(small.items[0]).toMatchObject({ url: expect.any(String) });

    sb.addJob({ id: 'many', status: 'completed', pagesTotal: 2500 });
    const raw = await drain(c.jobs.pages('many', { raw: true }));
    expect(raw.error).toBeUndefined();
    expect(raw.items).toHaveLength(2500);
    expect(typeof raw.items[0]).toBe('string');
    expect(JSON.parse(raw.items[2499] as string)).toEqual(expect.any(Object));
    const before = sb.requests().filter((r) => r.url.startsWith('/api/crawl/many/pages')).length;
    const limited = await drain(c.jobs.pages('many', { limit: 5 }));
    expect(limited.items).toHaveLength(5);
    const after = sb.requests().filter((r) => r.url.startsWith('/api/crawl/many/pages'));
    expect(after).toHaveLength(before + 1);
    expect(after.at(-1)?.url).toContain('limit=5');
  });

  it('pages of a running job: a CrawlError with exit 2, nothing read', async () => {
    const c = client();
    const { items, error } = await drain(c.jobs.pages('demo-pending'));
    expect(items).toEqual([]);
    expect(error).toMatchObject({ exitCode: ExitCode.usage });
    expect((error as Error).message).toMatch(/still pending/);
  });

  it('cancel: one DELETE; with wait, the stopped job; a job that has already ended is the service\'s 409', async () => {
    sb.addJob({ id: 'c1', status: 'running', pagesTotal: 10, cancel: { lagPolls: 2 } });
    const c = client();
    const stopped = await c.jobs.cancel('c1', { wait: true, intervalMs: 1000 });
    expect(stopped.status).toBe('cancelled_by_user');
    expect(sb.requests().filter((r) => r.method === 'DELETE' && r.url === '/api/crawl/c1')).toHaveLength(1);

    sb.addJob({ id: 'c2', status: 'running', pagesTotal: 10 });
    expect((await c.jobs.cancel('c2')).id).toBe('c2');
    sb.addJob({ id: 'c3', status: 'errored', pagesTotal: 10 });
    await expect(c.jobs.cancel('c3', { wait: true })).rejects.toMatchObject({ status: 409, exitCode: ExitCode.failure });
  });
});

describe('keys', () => {
  it('create hands the key over; list shows prefixes only; the key is in no later error message', async () => {
    const c = client();
    const made = await c.keys.create('from-node');
    expect(made.key).toMatch(/^crk_/);
    expect(made.prefix && made.key.startsWith(made.prefix)).toBe(true);
    const listed = await c.keys.list();
    expect(listed.some((k) => k.keyPrefix === made.prefix)).toBe(true);
    expect(JSON.stringify(listed)).not.toContain(made.key);
    await c.keys.revoke(made.prefix as string);
    expect((await c.keys.list()).some((k) => k.keyPrefix === made.prefix)).toBe(false);
  });

  it('revoke refuses a full key, an ambiguous prefix and the key in use (unless force) before any DELETE', async () => {
    const extra = sb.addKey('revoke-me');
    const c = client();
    const deletes = (): number => sb.requests().filter((r) => r.method === 'DELETE').length;
    const before = deletes();
    const full = await c.keys.revoke(extra.key).catch((e: unknown) => e);
    expect(full).toBeInstanceOf(UsageError);
    expect((full as Error).message).not.toContain(extra.key);
    await expect(c.keys.revoke('crk_')).rejects.toMatchObject({ exitCode: ExitCode.usage });
    await expect(c.keys.revoke('bootstrap')).rejects.toMatchObject({ exitCode: ExitCode.usage, message: expect.stringMatching(/key this client uses/) });
    await expect(c.keys.revoke('no-such-key')).rejects.toMatchObject({ exitCode: ExitCode.notFound });
    expect(deletes()).toBe(before);
    const done = await c.keys.revoke(extra.id);
    expect(done.id).toBe(extra.id);
    expect(deletes()).toBe(before + 1);
  });

  it('rotate: the old key is revoked only after store() resolves, with the new key; the client goes on with neither', async () => {
    const old = sb.addKey('ci');
    const c = client({ apiKey: old.key });
    const deletes = (): number => sb.requests().filter((r) => r.method === 'DELETE').length;
    const deletesBefore = deletes();
    const deletesAtStore: number[] = [];
    let stored = '';
    const rotation = await c.keys.rotate({
      store: async (key) => {
        deletesAtStore.push(deletes());
        stored = key;
      },
    });
    expect(stored).toMatch(/^crk_/);
    expect(rotation.old).toMatchObject({ id: old.id, revoked: true });
    expect(rotation.new.name).toMatch(/^ci \(rotated \d{4}-\d{2}-\d{2}\)$/);
    expect(JSON.stringify(rotation)).not.toContain(stored);
    const after = client({ apiKey: stored });
    const keys = await after.keys.list();
    expect(keys.some((k) => k.id === old.id)).toBe(false);
    expect(keys.some((k) => k.id === rotation.new.id)).toBe(true);
    // store() ran once, before any DELETE of this rotation; then the old key's one DELETE.
    expect(deletesAtStore).toEqual([deletesBefore]);
    expect(deletes()).toBe(deletesBefore + 1);
    expect(sb.requests().filter((r) => r.method === 'DELETE').at(-1)?.url).toBe(`/api/keys/${old.id}`);
  });

  it('rotate: store() rejects → the new key is revoked again and the old one stays active; the key is not in the message', async () => {
    const old = sb.addKey('ci-2');
    const c = client({ apiKey: old.key });
    let given = '';
    const error = await c.keys
      .rotate({
        store: async (key) => {
          given = key;
          throw new Error(`vault refused ${key}`);
        },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RotationError);
    expect(error).toMatchObject({ step: 'store', stored: false, rolledBack: true });
    expect((error as Error).message).not.toContain(given);
    expect((error as RotationError).secret()).toBeUndefined();
    await expectRolledBack(c, old.id, given);
  });

  it('rotate: store() rejects and the rollback fails too → RotationError.secret() holds the key, the message does not', async () => {
    const old = sb.addKey('ci-3');
    const c = client({ apiKey: old.key });
    let given = '';
    sb.inject({ method: 'DELETE', path: '^/api/keys/', kind: 'status', status: 500 });
    try {
      const error = await c.keys.rotate({ store: async (key) => {
        given = key;
        throw new Error('no store today');
      } }).catch((e: unknown) => e);
      expect(error).toMatchObject({ step: 'store', stored: false, rolledBack: false });
      expect((error as RotationError).secret()).toBe(given);
      expect((error as Error).message).not.toContain(given);
      expect((error as Error).message).toMatch(/only error\.secret\(\) holds it/);
    } finally {
      sb.reset();
    }
  });

  describe('rotate: store() rejects, and read() says what the store holds (the flow the CLI runs for key-store-command)', () => {
    it('the key in use: the new key is revoked again, and the error says the store still holds the old one', async () => {
      const old = sb.addKey('ci-read-old');
      const c = client({ apiKey: old.key });
      const { store, given } = refusingStore('vault: exited 1');
      const error = await c.keys.rotate({ store, read: async () => old.key }).catch((e: unknown) => e);
      expect(error).toMatchObject({ step: 'store', stored: false, rolledBack: true });
      expect((error as Error).message).toContain('read() shows the store still holds the key in use');
      expect((error as RotationError).secret()).toBeUndefined();
      await expectRolledBack(c, old.id, given());
    });

    it('the new key (the store took it, then failed): the rotation goes on, the old key revoked', async () => {
      const old = sb.addKey('ci-read-new');
      const c = client({ apiKey: old.key });
      let held = old.key;
      const rotation = await c.keys.rotate({
        store: async (key) => {
          held = key;
          throw new Error('vault: stored, then timed out');
        },
        read: async () => held,
      });
      expect(rotation.old).toMatchObject({ id: old.id, revoked: true });
      const keys = await client({ apiKey: held }).keys.list();
      expect(keys.some((k) => k.id === old.id)).toBe(false);
    });

    it('no answer: the new key is left active (the store may hold it), in error.secret() alone; nothing revoked', async () => {
      const old = sb.addKey('ci-read-none');
      const c = client({ apiKey: old.key });
      const { store, given } = refusingStore('vault: exited 1');
      const deletes = (): number => sb.requests().filter((r) => r.method === 'DELETE').length;
      const before = deletes();
      const error = await c.keys.rotate({ store, read: () => Promise.reject(new Error('vault: sealed')) }).catch((e: unknown) => e);
      expect(error).toMatchObject({ step: 'store', stored: false, rolledBack: false });
      expect((error as RotationError).secret()).toBe(given());
      expect((error as Error).message).toMatch(/read\(\) could not say what the store holds/);
      expect((error as Error).message).not.toContain(given());
      expect(deletes()).toBe(before);
    });
  });

  it('rotate: a key in use that the list cannot tell apart, or that it does not show, is refused before anything is created', async () => {
    const inUse = sb.addKey('twin-a', { key: 'crk_twinAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', keyPrefix: 'crk_twinA' });
    sb.addKey('twin-b', { key: 'crk_twinBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', keyPrefix: 'crk_twin' });
    const posts = (): number => sb.requests().filter((r) => r.method === 'POST').length;
    const before = posts();
    const twin = client({ apiKey: inUse.key });
    const error = await twin.keys.rotate({ store: async () => undefined }).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: ExitCode.failure, message: expect.stringMatching(/cannot be told apart/) });
    expect((error as Error).message).not.toContain(inUse.key);
    expect(posts()).toBe(before);
  });
});

describe('the embeddable sandbox', () => {
  it('requests() is a copy; reset() brings back its start: seed jobs, the bootstrap key alone, its own faults', async () => {
    const own = await startSandbox({ seed: true, faults: [{ path: '/api/crawl/demo-large', kind: 'status', status: 502 }] });
    try {
      const c = makeClient({ baseUrl: own.baseUrl, apiKey: own.bootstrapKey }, { env: {}, clock: fakeClock(), nodeVersion: '20' });
      open.push(c);
      await expect(c.jobs.get('demo-large')).rejects.toMatchObject({ status: 502 });
      own.addJob({ id: 'mine', status: 'completed', pagesTotal: 1 });
      const extra = own.addKey('other');
      const copy = own.requests();
      copy.length = 0;
      expect(own.requests().length).toBeGreaterThan(0);
      own.reset();
      expect(own.requests()).toEqual([]);
      await expect(c.jobs.get('mine')).rejects.toMatchObject({ status: 404 });
      await expect(c.jobs.get('demo-large')).rejects.toMatchObject({ status: 502 });
      expect((await c.keys.list()).map((k) => k.name)).toEqual(['bootstrap']);
      const other = makeClient({ baseUrl: own.baseUrl, apiKey: extra.key }, { env: {}, clock: fakeClock(), nodeVersion: '20' });
      open.push(other);
      await expect(other.jobs.get('demo-small')).rejects.toMatchObject({ status: 401 });
    } finally {
      await own.close();
    }
  });
});

describe('errors never carry the key', () => {
  it('a redirect to a URL that holds the key it was sent, and a path that holds it: the message, the stack and inspect() show [redacted]', async () => {
    const { createServer } = await import('node:http');
    const { inspect } = await import('node:util');
    const { listenOnLoopback } = await import('../support/loopback.js');
    const key = 'crk_' + 'Rz8'.repeat(14);
    const server = createServer((req, res) => {
      const sent = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      // Somewhere nothing listens: the message then names the URL it could not reach.
      if (req.url === '/api/crawl/redirect') res.writeHead(302, { location: `http://127.0.0.1:1/k/${sent}?k=${sent}` }).end();
      // A job with no id of its own (the one asked for stands in) that is still running: pages()
      // refuses it in the client's own words, after a 2xx answer.
      else if (req.url === `/api/crawl/${sent}running`) res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"job":{"status":"running"}}');
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{"success":false,"error":"no such job"}');
    });
    const { url, close } = await listenOnLoopback(server);
    try {
      // A fake clock: the retries of the unreachable redirect wait on nothing.
      const client = makeClient({ baseUrl: url, apiKey: key }, { env: { CRAWL_CONFIG_DIR: '/nonexistent-crawl-dir' }, clock: fakeClock(), nodeVersion: '20' });
      open.push(client);
      const firstPage = async (id: string): Promise<unknown> => {
        for await (const record of client.jobs.pages(id)) return record;
        return undefined;
      };
      for (const [id, call] of [['redirect', client.jobs.get], [key, client.jobs.get], [`${key}running`, firstPage]] as const) {
        const error = await call.call(client.jobs, id).then(() => undefined, (e: unknown) => e);
        expect(error).toBeInstanceOf(CrawlError);
        const shown = [String(error), (error as Error).stack ?? '', inspect(error), JSON.stringify(error)].join('\n');
        if (call === firstPage) expect(String(error)).toMatch(/^CrawlError: job \[redacted\]running is still running/);
        expect(shown).toContain('[redacted]');
        expect(shown).not.toContain(key.slice(4));
      }
    } finally {
      await close();
    }
  });
});

describe('a library keeps to itself', () => {
  it('thirty requests at once on one client (and its signal): no MaxListenersExceededWarning on the caller\'s stderr', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      const client = makeClient({ baseUrl: sb.baseUrl, apiKey: sb.bootstrapKey, signal: controller.signal }, { env: {}, clock: fakeClock(), nodeVersion: '20' });
      open.push(client);
      const jobs = await Promise.all(Array.from({ length: 30 }, () => client.jobs.get('demo-small')));
      expect(jobs.map((job) => job.status)).toEqual(Array(30).fill('completed'));
      // Node emits its warning on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a sandbox refused for a malformed fault leaves no server listening on its port', async () => {
    const { createServer } = await import('node:http');
    const { listenOnLoopback } = await import('../support/loopback.js');
    // A port just free; should another process take it first, the sandbox cannot listen there
    // (EADDRINUSE, not the fault's error), and another is tried.
    let port = 0;
    for (let tries = 0; ; tries++) {
      const probe = await listenOnLoopback(createServer());
      port = probe.port;
      await probe.close();
      const refused = await startSandbox({ port, faults: [{ kind: 'statuss' } as never] }).then(
        (sandbox) => sandbox.close().then(() => new Error('a sandbox was started')),
        (error: unknown) => error,
      );
      if ((refused as NodeJS.ErrnoException).code === 'EADDRINUSE' && tries < 5) continue;
      expect(String(refused)).toMatch(/Invalid fault/);
      break;
    }
    // Free again once the refused sandbox's server has closed (its handle goes on a later turn of
    // the loop); a server left listening holds the port for as long as the process lives.
    const started = Date.now();
    for (;;) {
      const again = createServer();
      const bound = await new Promise<boolean>((resolve) => {
        again.once('error', () => resolve(false));
        again.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (bound) {
        await new Promise((resolve) => again.close(resolve));
        break;
      }
      if (Date.now() - started > 10_000) throw new Error(`port ${port} is still held by the refused sandbox`);
      await new Promise((resolve) => setImmediate(resolve));
    }
  });
});

describe('the apiKey option is taken as CRAWL_API_KEY is', () => {
  it('a key read from a file with its line break is used; one no header can carry is refused at createClient, unquoted, before any request', async () => {
    const before = sb.requests().length;
    const fromFile = makeClient({ baseUrl: sb.baseUrl, apiKey: `${sb.bootstrapKey}\n` }, { env: {}, clock: fakeClock(), nodeVersion: '20' });
    open.push(fromFile);
    expect((await fromFile.jobs.get('demo-small')).status).toBe('completed');
    for (const [given, defect] of [
      ['crk_tab\tinside_the_key_0123', 'contains a tab (U+0009)'],
      ['crk_\u00fcber_0123456789abcdef', 'contains a character that is not plain ASCII (U+00FC)'],
      [' \n ', undefined],
    ] as const) {
      const thrown = (() => {
        try {
          createClient({ baseUrl: sb.baseUrl, apiKey: given, env: {} });
          return undefined;
        } catch (error) {
          return error;
        }
      })();
      expect(thrown, JSON.stringify(given)).toBeInstanceOf(UsageError);
      const error = thrown as UsageError;
      expect(error.exitCode).toBe(2);
      expect(error.message).toBe(defect === undefined ? 'the apiKey option is empty' : `the apiKey option ${defect}; refusing to send it`);
      if (given.trim() !== '') expect(error.message).not.toContain(given.trim().slice(0, 8));
    }
    expect(sb.requests().length).toBe(before + 1);
  });
});

describe("the options' numbers are checked before any request, as the CLI checks its flags", () => {
  it('pages: limit; watch and cancel --wait: intervalMs and maxWaitMs', async () => {
    const c = client();
    const before = sb.requests().length;
    const first = async (iterable: AsyncIterable<unknown>): Promise<unknown> => {
      for await (const item of iterable) return item;
      return undefined;
    };
    for (const limit of [0, -1, 2.5, Number.NaN]) {
      await expect(first(c.jobs.pages('demo-small', { limit })), String(limit)).rejects.toThrow(new UsageError(`limit must be a whole number of records, 1 or more, not ${String(limit)}`));
    }
    for (const intervalMs of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, 3e9]) {
      await expect(first(c.jobs.watch('demo-small', { intervalMs })), String(intervalMs)).rejects.toThrow(/^intervalMs must be a number of milliseconds above 0, at most 2147483647/);
      await expect(c.jobs.cancel('demo-pending', { wait: true, intervalMs })).rejects.toBeInstanceOf(UsageError);
    }
    await expect(first(c.jobs.watch('demo-small', { maxWaitMs: -1 }))).rejects.toThrow(/^maxWaitMs must be a number of milliseconds 0 or more/);
    await expect(first(c.jobs.watch('demo-small', { maxWaitMs: 1e12 }))).rejects.toThrow(/^maxWaitMs must be a number of milliseconds 0 or more, at most 2147483647, not 1000000000000$/);
    for (const timeoutMs of [0, -1, Number.NaN, 1e12]) expect(() => client({ timeoutMs }), String(timeoutMs)).toThrow(/^timeoutMs must be a number of milliseconds above 0/);
    expect(sb.requests().length).toBe(before);
    // The edges are taken.
    expect(await first(c.jobs.pages('demo-small', { limit: 1 }))).toBeDefined();
    expect(await first(c.jobs.watch('demo-small', { intervalMs: 1, maxWaitMs: 0 }))).toMatchObject({ id: 'demo-small' });
  });
});
