import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/harness.js';
import { relayTunnels } from '../support/loopback.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

// A minimal forward proxy (CONNECT tunnels and absolute-form requests) that counts what it relays.
let fx: SandboxFixture;
let proxy: http.Server;
let relayed = 0;
let proxyUrl = '';

beforeAll(async () => {
  fx = await sandboxFixture();
  proxy = http.createServer((req, res) => {
    relayed++;
    const upstream = http.request(new URL(req.url ?? ''), { method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(upstream);
  });
  relayTunnels(proxy, () => relayed++);
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await fx.close();
});

describe('proxy variables', () => {
  it('sends requests through HTTP_PROXY', async () => {
    const before = relayed;
    const result = await runCli(['job', 'demo-small', '--timeout', '5'], { env: { ...fx.env, HTTP_PROXY: proxyUrl } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('status\tcompleted');
    expect(relayed).toBeGreaterThan(before);
  });

  it('goes direct for hosts in NO_PROXY', async () => {
    const before = relayed;
    const result = await runCli(['job', 'demo-small'], { env: { ...fx.env, HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' } });
    expect(result.code).toBe(0);
    expect(relayed).toBe(before);
  });

  it('reports a proxy that refuses connections as a network error (exit 5)', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await runCli(['job', 'demo-small'], { env: { ...fx.env, HTTP_PROXY: `http://127.0.0.1:${port}` } });
    expect(result.code).toBe(5);
    expect(result.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2);
    expect(result.stderr).not.toContain(fx.sandbox.key);
  });
});
