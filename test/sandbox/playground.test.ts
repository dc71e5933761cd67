// The sandbox as a playground: demo-running progresses while it is watched (and barely
// on its own), `crawl sandbox --reset` / POST /__sandbox/reset restore the demo jobs, and `--log`
// prints each request with its keys redacted. In this process, over real HTTP.
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoJobs } from '../../src/sandbox/seed.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { listenOnLoopback } from '../support/loopback.js';
import { refusedUrl } from '../support/hostile-server.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { crawl, runCli, waitFor } from '../support/harness.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

describe('demo-running', () => {
  it('starts running at 37/120 and, left alone, runs for more than ten minutes', () => {
    const spec = demoJobs().find((j) => j.id === 'demo-running');
    expect(spec).toMatchObject({ status: 'running', pagesTotal: 120, pagesFinished: 37 });
    const perSecond = spec?.advance?.perSecond ?? Infinity;
    expect((120 - 37) / perSecond).toBeGreaterThan(600);
  });

  it('moves on as it is watched, and ends completed', async () => {
    const sandbox = await startSandbox({ port: 0 });
    try {
      expect(sandbox.getJob('demo-running')).toMatchObject({ status: 'running', pagesFinished: 37 });
      const r = await crawl(['job', 'watch', 'demo-running'], { env: { CRAWL_BASE_URL: sandbox.url, CRAWL_API_KEY: sandbox.key, CRAWL_CONFIG_DIR: fx.configDir } });
      expect(r.code).toBe(0);
      const lines = r.stderr.trim().split('\n');
      expect(lines[0]).toMatch(/^\[0:00\] running (49|50)\/120 pages/);
      expect(lines.at(-1)).toMatch(/ completed 120\/120 pages \(100%\)$/);
      expect(lines.length).toBeGreaterThanOrEqual(6);
      // A watch at the default 2 s sees it through in well under a minute of its time.
      expect(r.clock.elapsed()).toBeLessThanOrEqual(14_000);
    } finally {
      await sandbox.close();
    }
  });
});

describe('restoring the demo jobs', () => {
  async function spoil(sandbox: Sandbox): Promise<void> {
    const env = { CRAWL_BASE_URL: sandbox.url, CRAWL_API_KEY: sandbox.key, CRAWL_CONFIG_DIR: fx.configDir };
    expect((await crawl(['job', 'watch', 'demo-running'], { env })).code).toBe(0);
    expect((await crawl(['job', 'cancel', 'demo-pending'], { env })).code).toBe(0);
    expect(sandbox.getJob('demo-running')?.status).toBe('completed');
    expect(sandbox.getJob('demo-pending')?.status).toBe('cancelled_by_user');
  }
  const restored = (sandbox: Sandbox): void => {
    expect(sandbox.getJob('demo-running')).toMatchObject({ status: 'running', pagesFinished: 37 });
    expect(sandbox.getJob('demo-pending')).toMatchObject({ status: 'pending' });
  };

  it('crawl sandbox --reset, at the base URL in use; other jobs and keys stay', async () => {
    const sandbox = await startSandbox({ port: 0 });
    try {
      await spoil(sandbox);
      sandbox.addJob({ id: 'mine', status: 'completed', pagesTotal: 1 });
      const key = sandbox.addKey('mine');
      const r = await crawl(['sandbox', '--reset'], { env: { CRAWL_BASE_URL: sandbox.url, CRAWL_CONFIG_DIR: fx.configDir } });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`Reset the demo jobs of the sandbox at ${sandbox.url}: ${demoJobs().map((j) => j.id).join(' ')}\n`);
      restored(sandbox);
      expect(sandbox.getJob('mine')?.status).toBe('completed');
      const keys = await crawl(['keys', 'list', '--json'], { env: { CRAWL_BASE_URL: sandbox.url, CRAWL_API_KEY: key.key, CRAWL_CONFIG_DIR: fx.configDir } });
      expect(keys.code).toBe(0);
    } finally {
      await sandbox.close();
    }
  });

  it('--port names the sandbox; --json; the control endpoint itself', async () => {
    const sandbox = await startSandbox({ port: 0 });
    try {
      await spoil(sandbox);
      const r = await crawl(['sandbox', '--reset', '--port', new URL(sandbox.url).port, '--json'], { env: { CRAWL_BASE_URL: 'https://crawl.example.com', CRAWL_CONFIG_DIR: fx.configDir } });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ url: sandbox.url, reset: true, demoJobs: demoJobs().map((j) => j.id) });
      restored(sandbox);
      await spoil(sandbox);
      const res = await fetch(`${sandbox.url}/__sandbox/reset`, { method: 'POST' });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ success: true, demoJobs: demoJobs().map((j) => j.id) });
      restored(sandbox);
      expect((await fetch(`${sandbox.url}/__sandbox/reset`)).status).toBe(405);
    } finally {
      await sandbox.close();
    }
  });

  it('refused or failing: a remote base URL (2), nobody listening (5), not a sandbox (1), with serving flags (2)', async () => {
    const other = await listenOnLoopback(createServer((_req, res) => res.writeHead(404).end('no')));
    try {
      const [remote, nobody, notSandbox, mixed] = await Promise.all([
        crawl(['sandbox', '--reset'], { env: { CRAWL_BASE_URL: 'https://crawl.example.com', CRAWL_CONFIG_DIR: fx.configDir } }),
        crawl(['sandbox', '--reset'], { env: { CRAWL_BASE_URL: await refusedUrl(), CRAWL_CONFIG_DIR: fx.configDir } }),
        crawl(['sandbox', '--reset', '--port', String(other.port)], { env: { CRAWL_CONFIG_DIR: fx.configDir } }),
        crawl(['sandbox', '--reset', '--log'], { env: { CRAWL_CONFIG_DIR: fx.configDir } }),
      ]);
      expect(remote.code).toBe(2);
      expect(remote.stderr).toMatch(/^crawl: --reset restores a sandbox on this machine, and the base URL in use is https:\/\/crawl\.example\.com\n/);
      expect(nobody.code).toBe(5);
      expect(nobody.stderr).toMatch(/^crawl: no sandbox answers at http:\/\/127\.0\.0\.1:\d+: connection refused/);
      expect(notSandbox.code).toBe(1);
      expect(notSandbox.stderr).toBe(`crawl: ${other.url} is not a crawl sandbox: POST /__sandbox/reset answered HTTP 404\n`);
      expect(mixed.code).toBe(2);
    } finally {
      await other.close();
    }
  });

  it('a port that answers no HTTP (5, in the words every command uses), one that never answers (5, within --timeout)', async () => {
    const garbage = await listenOnLoopback(createNetServer((socket) => socket.end('SSH-2.0-not-http\r\n')));
    const silent = await listenOnLoopback(createNetServer(() => undefined));
    try {
      const [notHttp, hangs] = await Promise.all([
        crawl(['sandbox', '--reset', '--port', String(garbage.port)], { env: { CRAWL_CONFIG_DIR: fx.configDir } }),
        crawl(['sandbox', '--reset', '--port', String(silent.port), '--timeout', '0.2'], { env: { CRAWL_CONFIG_DIR: fx.configDir } }),
      ]);
      expect(notHttp.code).toBe(5);
      expect(notHttp.stderr).toMatch(/^crawl: no sandbox answers at http:\/\/127\.0\.0\.1:\d+: the answer is not valid HTTP \(start one with/);
      expect(hangs.code).toBe(5);
      expect(hangs.stderr).toMatch(/^crawl: no sandbox answers at http:\/\/127\.0\.0\.1:\d+: no answer within 0\.2 s/);
    } finally {
      await Promise.all([garbage.close(), silent.close()]);
    }
  });
});

describe('crawl sandbox --log', () => {
  it('a line for each request once answered: method, path, outcome, which key; never a key', async () => {
    const stranger = `crk_${'Z'.repeat(40)}`;
    let key = '';
    const r = await runCli(['sandbox', '--port', '0', '--log'], {
      env: { CRAWL_SANDBOX_KEY: `crk_${'b'.repeat(40)}` },
      onSpawn: (child, out) => {
        void waitFor(() => /Bootstrap key: \S+\n/.test(out.stdout()), 10_000, 'the start-up lines').then(async () => {
          const url = /Sandbox listening on (\S+)/.exec(out.stdout())?.[1] ?? '';
          key = /Bootstrap key: (\S+)/.exec(out.stdout())?.[1] ?? '';
          const call = async (path: string, init: RequestInit = {}): Promise<void> => void (await (await fetch(url + path, init)).arrayBuffer());
          const auth = (k: string): RequestInit => ({ headers: { authorization: `Bearer ${k}` } });
          await call('/api/crawl/demo-small', auth(key));
          await call(`/api/crawl/${key}?also=${encodeURIComponent(key)}`, auth(key));
          await call(`/api/crawl/x?token=${stranger}`, auth(stranger));
          await call('/api/keys');
          const made = (await (await fetch(`${url}/api/keys`, { method: 'POST', body: JSON.stringify({ name: 'evil\u001b[31mname' }), ...auth(key) })).json()) as { key: string };
          await call('/api/keys', auth(made.key));
          await call('/__sandbox/reset', { method: 'POST' });
          await waitFor(() => (out.stderr().match(/ ms \(/g) ?? []).length >= 7, 10_000, 'seven log lines');
          child.kill('SIGINT');
        });
      },
    });
    expect(r.code).toBe(0);
    const log = r.stderr.split('\n').filter((l) => / ms \(/.test(l));
    const prefix = key.slice(0, 12);
    expect(log).toEqual([
      expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} GET /api/crawl/demo-small 200 \\d+ ms \\(key "bootstrap" ${prefix}\\)$`)),
      expect.stringMatching(new RegExp(`^\\S+ GET /api/crawl/\\[redacted\\]\\?also=\\[redacted\\] 404 \\d+ ms \\(key "bootstrap" ${prefix}\\)$`)),
      expect.stringMatching(/^\S+ GET \/api\/crawl\/x\?token=\[redacted\] 401 \d+ ms \(an unknown key\)$/),
      expect.stringMatching(/^\S+ GET \/api\/keys 401 \d+ ms \(no key\)$/),
      expect.stringMatching(new RegExp(`^\\S+ POST /api/keys 201 \\d+ ms \\(key "bootstrap" ${prefix}\\)$`)),
      expect.stringMatching(/^\S+ GET \/api\/keys 200 \d+ ms \(key "evil\\u001b\[31mname" crk_\w{8}\)$/),
      expect.stringMatching(/^\S+ POST \/__sandbox\/reset 200 \d+ ms \(control\)$/),
    ]);
    // (The start-up lines hand the bootstrap key over, as they should: the log never does.)
    expect(log.join('\n')).not.toContain(key.slice(12));
    expect(r.stderr).not.toContain(stranger.slice(12));
    expect(r.stderr).not.toContain('\u001b');
  });
});
