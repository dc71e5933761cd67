
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../../src/io/string-width.js';
import { runCli } from '../../support/harness.js';
import { configProfile, fullKeysIn, keyStatus } from '../../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

let fx: SandboxFixture;
let ci: { id: string; key: string; keyPrefix: string };
let deploy: { id: string; key: string; keyPrefix: string };
let evil: { id: string; key: string; keyPrefix: string };
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  ci = fx.sandbox.addKey('ci');
  deploy = fx.sandbox.addKey('deploy');
  evil = fx.sandbox.addKey('evil\u001b[31m\u0007name');
  // ci has been used, deploy never.
  expect(await keyStatus(fx.sandbox, ci.key)).toBe(200);
});
afterAll(() => fx.close());

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function rows(stdout: string): string[][] {
  return stdout.split('\n').filter((l) => l !== '').map((l) => l.split('\t'));
}

describe('crawl keys list', () => {
  it('off a terminal: tab-separated rows, full values, RFC 3339 times, the key in use marked true', async () => {
    const r = await runCli(['keys', 'list'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const table = rows(r.stdout);
    expect(table.map((row) => row[0])).toEqual(expect.arrayContaining([ci.id, deploy.id, evil.id]));
    for (const row of table) {
      expect(row).toHaveLength(6);
      expect(row[4]).toMatch(RFC3339);
      expect(['true', 'false']).toContain(row[5]);
    }
    const byId = new Map(table.map((row) => [row[0], row]));
    expect(byId.get(ci.id)?.slice(1, 3)).toEqual(['ci', ci.keyPrefix]);
    expect(byId.get(ci.id)?.[3]).toMatch(RFC3339);
    expect(byId.get(deploy.id)?.[3]).toBe('');
    // The bootstrap key is CRAWL_API_KEY: it is the one in use, and only it.
    const inUse = table.filter((row) => row[5] === 'true');
    expect(inUse).toHaveLength(1);
    expect(fx.sandbox.key.startsWith(inUse[0]?.[2] ?? '-')).toBe(true);
    // Control characters from the server never reach the output.
    expect(byId.get(evil.id)?.[1]).toBe('evil[31mname');
    expect(r.stdout).not.toMatch(/[\u0007\u001b]/);
  });

  it('on a terminal: a table with headers, relative times, never, and the key in use marked', async () => {
    const r = await runCli(['keys', 'list', '--no-color'], { env: fx.env, tty: true });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+LAST USED\s+CREATED$/);
    const line = (id: string): string => lines.find((l) => l.startsWith(id)) ?? '';
    expect(line(deploy.id)).toMatch(/deploy\s+crk_\S+\s+never\s+\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z \(just now\)/);
    // LAST USED, like CREATED: the time and how long ago.
    expect(line(ci.id)).toMatch(/ci\s+crk_\S+\s+\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z \(just now\)\s+\d{4}-/);
    expect(line(ci.id)).not.toContain('(in use)');
    expect(lines.filter((l) => l.includes('(in use)'))).toHaveLength(1);
    expect(lines.find((l) => l.includes('(in use)'))).toMatch(/bootstrap \(in use\)/);
    expect(r.stdout).not.toMatch(/[\u0007]|\u001b\[31m/);
  });

  it('--json writes the service body as received', async () => {
    const r = await runCli(['keys', 'list', '--json'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const body = JSON.parse(r.stdout);
    expect(body.success).toBe(true);
    expect(Object.keys(body.keys[0]).sort()).toEqual(['createdAt', 'id', 'keyPrefix', 'lastUsedAt', 'name']);
    expect(body.keys.find((k: { id: string }) => k.id === evil.id).name).toBe('evil\u001b[31m\u0007name');
    expect(body.keys.find((k: { id: string }) => k.id === deploy.id).lastUsedAt).toBeNull();
  });

  it('marks the key from the config file when that is the key in use', async () => {
    const profile = configProfile(fx.sandbox, deploy.key);
    try {
      const r = await runCli(['keys', 'list'], { env: { ...fx.env, ...profile.env } });
      expect(r.code).toBe(0);
      const inUse = rows(r.stdout).filter((row) => row[5] === 'true').map((row) => row[0]);
      expect(inUse).toEqual([deploy.id]);
    } finally {
      profile.cleanup();
    }
  });

  it('never shows a full key, even with --verbose', async () => {
    const r = await runCli(['keys', 'list', '--verbose'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Authorization: Bearer');
    expect(fullKeysIn(r.stdout + r.stderr)).toEqual([]);
  });
});

describe('crawl keys list with no keys', () => {
  let server: Server;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"success":true,"keys":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    env = { ...fx.env, CRAWL_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('exits 0 in every mode', async () => {
    const plain = await runCli(['keys', 'list'], { env });
    expect(plain).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const json = await runCli(['keys', 'list', '--json'], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ success: true, keys: [] });
    const tty = await runCli(['keys', 'list'], { env, tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/No active keys/);
  });
});

describe('2,000 keys', () => {
  // `keys list` with thousands of keys on a terminal: the table used to be laid out in time
  // quadratic in the rows. It must come out whole and aligned; test/io/table.test.ts shows, by
  // counting the work, that the layout grows linearly with the rows.
  const KEYS = 2_000;

  let fx: SandboxFixture;
  beforeAll(async () => {
    fx = await sandboxFixture({ seed: false });
    for (let i = 0; i < KEYS; i++) fx.sandbox.addKey(i % 7 === 0 ? `名前-${i}` : `key-${i}`);
  });
  afterAll(() => fx.close());

  it(`keys list with ${KEYS.toLocaleString('en-US')} keys on a terminal: every key, aligned, the key in use marked`, async () => {
    const r = await runCli(['keys', 'list', '--no-color'], { env: fx.env, tty: true });
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+LAST USED\s+CREATED$/);
    expect(lines).toHaveLength(KEYS + 2);
    // Every PREFIX starts in the same terminal column, wide names or not.
    const column = (line: string): number => displayWidth(line.slice(0, line.indexOf('crk_')));
    const header = displayWidth(lines[0]?.slice(0, lines[0].indexOf('PREFIX')) ?? '');
    expect(new Set(lines.slice(1).map(column))).toEqual(new Set([header]));
    expect(lines.filter((l) => l.includes('(in use)'))).toHaveLength(1);
    const lastWide = KEYS - 1 - ((KEYS - 1) % 7);
    expect(lines.some((l) => l.includes(`名前-${lastWide} `))).toBe(true);
  });
});
