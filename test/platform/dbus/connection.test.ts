// Connecting to a bus address: each entry in turn until one connects, authenticates and answers
// Hello, and when none does, why: nothing there (no bus), nothing crawl can speak (a keyring it
// cannot reach), or a bus that is there and fails. Buses of the test's own (test/support/fake-bus.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DBusConnection, DBusError, sessionBusAddress } from '../../../src/platform/dbus/connection.js';
import { endpointOf, parseAddress, type AddressEntry } from '../../../src/platform/dbus/address.js';
import { rawReply, startFakeBus, u32, type FakeBus } from '../../support/fake-bus.js';

const UID = 1000;
const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

async function bus(options: Parameters<typeof startFakeBus>[0] = {}): Promise<FakeBus> {
  const b = await startFakeBus(options);
  open.push(b);
  return b;
}

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'crawl-addr-'));
  open.push({ close: () => rmSync(dir, { recursive: true, force: true }) });
  return dir;
}

async function connect(address: string, abstractSockets = false): Promise<DBusConnection> {
  const conn = await DBusConnection.open(address, UID, AbortSignal.timeout(10_000), { abstractSockets });
  open.push(conn);
  return conn;
}

async function refusal(address: string, abstractSockets = false): Promise<DBusError> {
  const error = await DBusConnection.open(address, UID, AbortSignal.timeout(10_000), { abstractSockets }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DBusError);
  return error as DBusError;
}

describe('DBusConnection.open: each entry of the address in turn', () => {
  it('a socket that is gone, then a live bus: the live one is used', async () => {
    const live = await bus();
    const conn = await connect(`unix:path=/gone/bus;${live.address}`);
    expect(conn.uniqueName).toBe(':1.1');
    expect(live.connections()).toBe(1);
  });

  it('an entry crawl cannot speak, then a live bus: the live one is used', async () => {
    const live = await bus();
    const conn = await connect(`tcp:host=127.0.0.1,port=1;unix:abstract=/tmp/x;${live.address}`);
    expect(conn.uniqueName).toBe(':1.1');
  });

  it('a bus that refuses this user, or answers the handshake with nonsense, then a live one: the first that authenticates is used', async () => {
    const refusing = await bus({ auth: 'reject' });
    const garbling = await bus({ auth: 'garble' });
    const live = await bus();
    const conn = await connect(`${refusing.address};${garbling.address};${live.address}`);
    expect(conn.uniqueName).toBe(':1.1');
    expect([refusing.connections(), garbling.connections(), live.connections()]).toEqual([1, 1, 1]);
  });

  it('a bus whose Hello answer breaks the specification (an array of empty structs), then a live one: the live one is used', async () => {
    const rawPath = join(scratch(), 'bus');
    const hostile = createServer((socket) => {
      socket.once('data', () => {
        socket.write('OK 0123456789abcdef0123456789abcdef\r\n');
        // Hello is the first call: serial 1.
        socket.write(rawReply(1, 'a()', Buffer.concat([u32(8), Buffer.alloc(12)])));
      });
    });
    await new Promise<void>((resolve) => hostile.listen(rawPath, resolve));
    open.push({ close: () => new Promise<void>((resolve) => hostile.close(() => resolve())) });
    const live = await bus();
    const conn = await connect(`unix:path=${rawPath};${live.address}`);
    expect(conn.uniqueName).toBe(':1.1');
  });

  it('nothing listens at any entry: no bus (crawl.NoBus), naming the socket when there is one', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'file'), '');
    const one = await refusal('unix:path=/gone/bus');
    expect(one.dbusName).toBe('crawl.NoBus');
    expect(one.message).toBe('cannot connect to the session bus at /gone/bus: ENOENT');
    // A socket file nobody listens on, a path through a file: nothing there either.
    const server: Server = createServer();
    const stale = join(dir, 'stale');
    await new Promise<void>((resolve) => server.listen(stale, resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
    writeFileSync(stale, '');
    const several = await refusal(`unix:path=/gone/bus;unix:path=${join(dir, 'file', 'bus')};unix:path=${join(dir, 'stale')}`);
    expect(several.dbusName).toBe('crawl.NoBus');
    expect(several.message).toBe('nothing listens at any of the 3 entries of the session bus address');
  });

  it('only entries crawl cannot use (and sockets that are gone): crawl.Unsupported, naming each', async () => {
    const error = await refusal('tcp:host=127.0.0.1,port=4242;unix:abstract=/tmp/x;autolaunch:;unix:path=/gone/bus');
    expect(error.dbusName).toBe('crawl.Unsupported');
    expect(error.message).toBe(
      'the session bus address has no entry crawl can use: the tcp: transport, which crawl does not speak; unix:abstract=, which this Node cannot reach (Node 22 and later can); the autolaunch: transport, which crawl does not speak; nothing listens at its other entry',
    );
    expect((await refusal('unix:tmpdir=/tmp')).dbusName).toBe('crawl.Unsupported');
  });

  it('a bus that is there but fails wins over entries crawl cannot use: its own error', async () => {
    const refusing = await bus({ auth: 'reject' });
    const error = await refusal(`tcp:host=127.0.0.1,port=1;${refusing.address};unix:path=/gone/bus`);
    expect(error.dbusName).toBe('crawl.Auth');
    expect(error.message).toBe(`the session bus at ${refusing.path} refused this user (EXTERNAL authentication)`);
  });

  it('an address that cannot be read: crawl.BadAddress, saying where', async () => {
    const error = await refusal('unix:path=/run/user/1000/bus;tcp:host');
    expect(error.dbusName).toBe('crawl.BadAddress');
    expect(error.message).toBe('the session bus address cannot be read: entry 2 (tcp:) has a parameter that is not key=value');
  });

  it('an aborted signal ends the attempt with its reason, between entries too', async () => {
    const controller = new AbortController();
    const reason = new Error('stopped');
    controller.abort(reason);
    await expect(DBusConnection.open('unix:path=/gone/bus', UID, controller.signal)).rejects.toBe(reason);
  });
});

describe('sessionBusAddress', () => {
  it('DBUS_SESSION_BUS_ADDRESS as it is', () => {
    expect(sessionBusAddress({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x;tcp:host=h,port=1', XDG_RUNTIME_DIR: '/run/user/1000' }, UID)).toBe('unix:path=/x;tcp:host=h,port=1');
  });

  it('else $XDG_RUNTIME_DIR/bus, escaped, so that a folder named "bü🦀s;,%" reads back whole', async () => {
    const dir = join(scratch(), 'bü🦀s;,%');
    mkdirSync(dir);
    const live = await bus({ dir });
    const address = sessionBusAddress({ XDG_RUNTIME_DIR: dir }, process.getuid?.());
    expect(address).toBe(`unix:path=${dir.slice(0, dir.lastIndexOf('/'))}/b%c3%bc%f0%9f%a6%80s%3b%2c%25/bus`);
    expect(endpointOf(parseAddress(address as string)[0] as AddressEntry, { abstractSockets: false })).toMatchObject({ path: live.path });
    expect((await connect(address as string)).uniqueName).toBe(':1.1');
  });

  it('as libdbus: only when $XDG_RUNTIME_DIR/bus is there, a socket, and this user’s', async () => {
    const dir = scratch();
    expect(sessionBusAddress({ XDG_RUNTIME_DIR: dir }, process.getuid?.())).toBeUndefined();
    writeFileSync(join(dir, 'bus'), '');
    expect(sessionBusAddress({ XDG_RUNTIME_DIR: dir }, process.getuid?.())).toBeUndefined();
    const other = join(dir, 'other');
    mkdirSync(other);
    await bus({ dir: other });
    expect(sessionBusAddress({ XDG_RUNTIME_DIR: other }, process.getuid?.())).toBe(`unix:path=${other}/bus`);
    expect(sessionBusAddress({ XDG_RUNTIME_DIR: other }, (process.getuid?.() ?? 0) + 1)).toBeUndefined();
    expect(sessionBusAddress({}, UID)).toBeUndefined();
  });
});
