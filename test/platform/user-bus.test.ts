// The desktop session's bus named to a shell that lacks it (src/platform/user-bus.ts): only a
// socket that is there and is the user's, not one the environment already names, escaped as the
// D-Bus specification escapes an address's values.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { escapeAddressValue, userBusAddress } from '../../src/platform/user-bus.js';
import { tempDir } from '../support/harness.js';

const tmp = tempDir('crawl-user-bus-');
afterAll(() => tmp.cleanup());
const uid = process.getuid?.() ?? 0;

async function withSocket<T>(folder: string, work: () => T): Promise<T> {
  mkdirSync(folder, { recursive: true });
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(join(folder, 'bus'), resolve));
  try {
    return work();
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('escapeAddressValue', () => {
  it('leaves [-0-9A-Za-z_/.*] alone and writes every other byte as %XX of its UTF-8', () => {
    expect(escapeAddressValue('/run/user/1000/bus')).toBe('/run/user/1000/bus');
    expect(escapeAddressValue('/a;b,c=d%e f\\g')).toBe('/a%3bb%2cc%3dd%25e%20f%5cg');
    expect(escapeAddressValue('/bü🦀s')).toBe('/b%c3%bc%f0%9f%a6%80s');
  });
});

describe('userBusAddress', () => {
  it("the user's own socket at <runtime>/bus, escaped", async () => {
    const runtime = join(tmp.dir, 'run;1');
    expect(await withSocket(runtime, () => userBusAddress(runtime, uid, {}))).toBe(`unix:path=${escapeAddressValue(runtime)}/bus`);
  });

  it("another user's socket, a file that is no socket, or nothing: none", async () => {
    const runtime = join(tmp.dir, 'run-2');
    expect(await withSocket(runtime, () => userBusAddress(runtime, uid + 1, {}))).toBeUndefined();
    const plain = join(tmp.dir, 'run-3');
    mkdirSync(plain);
    writeFileSync(join(plain, 'bus'), '');
    expect(userBusAddress(plain, uid, {})).toBeUndefined();
    expect(userBusAddress(join(tmp.dir, 'nothing'), uid, {})).toBeUndefined();
    expect(userBusAddress(undefined, uid, {})).toBeUndefined();
    expect(userBusAddress(runtime, undefined, {})).toBeUndefined();
  });

  it('none when the environment already names that bus (crawl has tried it)', async () => {
    const runtime = join(tmp.dir, 'run-4');
    await withSocket(runtime, () => {
      expect(userBusAddress(runtime, uid, { DBUS_SESSION_BUS_ADDRESS: `unix:path=/gone;unix:path=${runtime}/bus` })).toBeUndefined();
      expect(userBusAddress(runtime, uid, { XDG_RUNTIME_DIR: runtime })).toBeUndefined();
      expect(userBusAddress(runtime, uid, { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/gone' })).toBe(`unix:path=${runtime}/bus`);
    });
  });
});
