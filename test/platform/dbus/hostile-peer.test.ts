// A bus that sends what no daemon sends (test/support/fake-bus.ts, a socket of the test's own):
// a big-endian reply is read; a message the specification forbids closes the connection with
// one line naming the bus, every pending call rejected at once, the event loop free; a length
// claim of hundreds of megabytes is refused without making anything of that size. And through
// the CLI: a keyring read that gets such a reply ends in exit 1 at once, no deadline passed.
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DBusConnection, DBusError } from '../../../src/platform/dbus/connection.js';
import { encodeMessage, MessageType, type Message } from '../../../src/platform/dbus/wire.js';
import { rawReply, startFakeBus, u32, type FakeBus, type FakePeer } from '../../support/fake-bus.js';
import { crawl } from '../../support/harness.js';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

/** A fake bus and a connection to it; `answer` gets every call after Hello. */
async function connected(answer: (m: Message, peer: FakePeer) => void): Promise<{ bus: FakeBus; conn: DBusConnection }> {
  const bus = await startFakeBus();
  open.push(bus);
  bus.onCall(answer);
  const conn = await DBusConnection.open(bus.address, 1000, AbortSignal.timeout(10_000), { abstractSockets: false });
  open.push(conn);
  return { bus, conn };
}

const call = (conn: DBusConnection, member: string): Promise<unknown[]> => conn.call({ destination: 'org.example', path: '/', interface: 'org.example.I', member });

/** Settles with the call's outcome: its body, or the error it rejected with. */
const outcomeOf = (p: Promise<unknown[]>): Promise<{ body: unknown[] } | { error: unknown }> => p.then((body) => ({ body }), (error: unknown) => ({ error }));

/** Resolves when a timer fires: on a later turn of the event loop, which turns only if nothing holds it. */
const laterTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('a peer that sends what no daemon sends', () => {
  it('a big-endian reply is read, and the call resolves with it', async () => {
    const sent: Buffer[] = [];
    const { conn } = await connected((m, peer) => {
      const bytes = encodeMessage({ type: MessageType.reply, flags: 0, serial: 9, replySerial: m.serial, signature: 'sa{sv}t', body: ['grüße', [['n', ['u', 7]]], 2n ** 60n] }, { bigEndian: true });
      sent.push(bytes);
      peer.send(bytes);
    });
    expect(await call(conn, 'Get')).toEqual(['grüße', [['n', ['u', 7]]], 2n ** 60n]);
    // Big-endian indeed: "B", and the serial's last byte last.
    expect(sent[0]?.subarray(0, 4)).toEqual(Buffer.from([0x42, 2, 0, 1]));
    expect(sent[0]?.subarray(8, 12)).toEqual(Buffer.from([0, 0, 0, 9]));
    // And the connection goes on.
    expect(await call(conn, 'Again')).toEqual(['grüße', [['n', ['u', 7]]], 2n ** 60n]);
  });

  it('an array of empty structs with a length claim closes the connection: every pending call rejects at once with one line naming the bus', async () => {
    let first: Message | undefined;
    const { bus, conn } = await connected((m, peer) => {
      if (m.member === 'First') first = m;
      // Answered only once both calls are pending.
      else peer.send(rawReply((first as Message).serial, 'a()', Buffer.concat([u32(8), Buffer.alloc(12)])));
    });
    const pending = [outcomeOf(call(conn, 'First')), outcomeOf(call(conn, 'Second'))];
    const [a, b] = await Promise.all(pending);
    for (const outcome of [a, b]) {
      expect(outcome).toEqual({ error: expect.any(DBusError) });
      const error = (outcome as { error: DBusError }).error;
      expect(error.dbusName).toBe('crawl.Protocol');
      expect(error.message).toBe(`the session bus at ${bus.path} sent a message crawl cannot read: D-Bus signature "a()" holds an empty struct`);
    }
    // Closed: a later call is refused with the same error, without a word on the socket.
    await expect(call(conn, 'Third')).rejects.toBe((a as { error: DBusError }).error);
    expect(bus.calls.map((m) => m.member)).toEqual(['First', 'Second']);
  });

  it('an array claiming 200 MB, or a body of 200 MB, is refused without making anything of that size', async () => {
    const before = process.memoryUsage().arrayBuffers;
    const claim = await connected((m, peer) => peer.send(rawReply(m.serial, 'ay', u32(200_000_000))));
    const refused = await outcomeOf(call(claim.conn, 'Get'));
    expect((refused as { error: DBusError }).error.message).toMatch(/sent a message crawl cannot read: a D-Bus array of 200000000 bytes \(at most 67108864\)$/);
    const header = Buffer.alloc(16);
    header.write('l', 0);
    header.writeUInt8(2, 1);
    header.writeUInt8(1, 3);
    header.writeUInt32LE(200_000_000, 4);
    const body = await connected((_m, peer) => peer.send(header));
    const refusedBody = await outcomeOf(call(body.conn, 'Get'));
    expect((refusedBody as { error: DBusError }).error.message).toMatch(/sent a message crawl cannot read: a D-Bus message of 200000016 bytes \(crawl reads at most 1048576\)$/);
    // Nothing near 200 MB was allocated for either.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('any bytes as a reply: the call settles or waits, the event loop keeps turning, and a refusal is one line', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), fc.constantFrom('', 'a()', 'ay', 'a{sv}', 'v', '(ss)'), fc.boolean(), async (bytes, signature, asMessage) => {
        const { conn } = await connected((m, peer) => peer.send(asMessage ? rawReply(m.serial, signature, Buffer.from(bytes)) : Buffer.from(bytes)));
        let settled: { body: unknown[] } | { error: unknown } | undefined;
        void outcomeOf(call(conn, 'Get')).then((o) => (settled = o));
        // The reply is read on the socket's data event; two timers firing after it show the loop is free.
        await laterTurn();
        await laterTurn();
        if (settled !== undefined && 'error' in settled) {
          expect(settled.error).toBeInstanceOf(DBusError);
          expect((settled.error as Error).message).not.toMatch(/[\n\r]/);
        }
        conn.close();
        for (const thing of open.splice(0)) await thing.close();
      }),
      { numRuns: 25 },
    );
  });
});

describe('through the CLI', () => {
  it('a keyring read answered with a message the specification forbids: exit 1 at once, one line and a hint, no deadline passed', async () => {
    const bus = await startFakeBus();
    open.push(bus);
    bus.onCall((m, peer) => peer.send(rawReply(m.serial, 'a()', Buffer.concat([u32(8), Buffer.alloc(12)]))));
    const dir = mkdtempSync(join(tmpdir(), 'crawl-hostile-'));
    open.push({ close: () => rmSync(dir, { recursive: true, force: true }) });
    const config = JSON.stringify({ profiles: { default: { 'base-url': 'http://127.0.0.1:9/', 'key-store': 'keyring', 'keyring-service': 'crawl:http://127.0.0.1:9', 'keyring-account': 'default:0123456789ab' } } });
    writeFileSync(join(dir, 'config.json'), config, { mode: 0o600 });
    const r = await crawl(['auth', 'token'], { env: { CRAWL_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: bus.address } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `crawl: could not read the key in the system keyring (Secret Service): the session bus at ${bus.path} sent a message crawl cannot read: D-Bus signature "a()" holds an empty struct\n` +
        'hint: set CRAWL_API_KEY for this shell, or keep the key in the config file instead: `crawl auth login --insecure-storage`\n',
    );
    // At once: the keyring's bound did not have to pass, and none is left set.
    expect(r.clock.elapsed()).toBe(0);
    expect(r.clock.pendingDeadlines()).toBe(0);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(config);
  });
});
