// A bus of the test's own on a Unix socket in a scratch folder: it speaks the authentication
// handshake and answers Hello as dbus-daemon would, then hands every other call to the test, which
// answers with whatever bytes it likes: what no daemon sends (big-endian replies, signatures the
// specification forbids, lengths that claim hundreds of megabytes). `rawMessage` builds those.
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeMessage, encodeMessage, messageLength, MessageType, Writer, type DBusValue, type Message } from '../../src/platform/dbus/wire.js';
import { escapeAddressValue } from '../../src/platform/dbus/address.js';

export interface FakePeer {
  /** Bytes as they are. */
  send(bytes: Buffer): void;
  /** A well-formed reply to `to`, in either byte order. */
  reply(to: Message, signature?: string, body?: DBusValue[], options?: { bigEndian?: boolean }): void;
  /** An error reply to `to`, as a bus sends for a name nobody owns. */
  error(to: Message, name: string, text: string): void;
}

export interface FakeBus {
  /** `unix:path=…`, escaped. */
  address: string;
  path: string;
  /** Every call a client makes after Hello, in order. */
  calls: Message[];
  /** Called with each call after Hello; what it does not answer stays unanswered. */
  onCall(handler: (m: Message, peer: FakePeer) => void): void;
  /** How many clients have connected. */
  connections(): number;
  close(): Promise<void>;
}

export interface FakeBusOptions {
  /** What the handshake answers: OK (the default), REJECTED, or a line that is no answer at all. */
  auth?: 'ok' | 'reject' | 'garble';
  /** The folder the socket goes in (made by the test), `bus` in a scratch folder by default. */
  dir?: string;
}

export async function startFakeBus(options: FakeBusOptions = {}): Promise<FakeBus> {
  const own = options.dir === undefined ? mkdtempSync(join(tmpdir(), 'crawl-bus-')) : undefined;
  const path = join(options.dir ?? (own as string), 'bus');
  const calls: Message[] = [];
  const sockets = new Set<Socket>();
  let handler: (m: Message, peer: FakePeer) => void = () => undefined;
  let connected = 0;
  let serial = 1000;
  const server: Server = createServer((socket) => {
    connected++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const peer: FakePeer = {
      send: (bytes) => {
        if (!socket.destroyed) socket.write(bytes);
      },
      reply: (to, signature = '', body = [], o = {}) =>
        peer.send(encodeMessage({ type: MessageType.reply, flags: 0, serial: ++serial, replySerial: to.serial, signature, body }, o)),
      error: (to, name, text) => peer.send(encodeMessage({ type: MessageType.error, flags: 0, serial: ++serial, replySerial: to.serial, errorName: name, signature: 's', body: [text] })),
    };
    let text = '';
    let binary: Buffer | undefined;
    socket.on('data', (chunk: Buffer) => {
      if (binary === undefined) {
        text += chunk.toString('latin1');
        for (let end = text.indexOf('\r\n'); end >= 0 && binary === undefined; end = text.indexOf('\r\n')) {
          const line = text.slice(0, end).replace(/^\0/, '');
          text = text.slice(end + 2);
          if (line.startsWith('AUTH')) {
            if (options.auth === 'reject') socket.write('REJECTED EXTERNAL\r\n');
            else if (options.auth === 'garble') socket.write('HELLO THERE\r\n');
            else socket.write('OK 0123456789abcdef0123456789abcdef\r\n');
          } else if (line === 'BEGIN') {
            binary = Buffer.from(text, 'latin1');
          }
        }
        if (binary === undefined) return;
      } else {
        binary = Buffer.concat([binary, chunk]);
      }
      for (let length = messageLength(binary); length !== undefined && binary.length >= length; length = messageLength(binary)) {
        const m = decodeMessage(binary.subarray(0, length));
        binary = binary.subarray(length);
        if (m.member === 'Hello' && m.interface === 'org.freedesktop.DBus') peer.reply(m, 's', [`:1.${connected}`]);
        else {
          calls.push(m);
          handler(m, peer);
        }
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  return {
    address: `unix:path=${escapeAddressValue(path)}`,
    path,
    calls,
    onCall: (h) => {
      handler = h;
    },
    connections: () => connected,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (own !== undefined) rmSync(own, { recursive: true, force: true });
    },
  };
}

/**
 * A reply to `replySerial` with `signature` in its header and `body` as it is: no check of either,
 * so that it can be what the specification forbids.
 */
export function rawReply(replySerial: number, signature: string, body: Buffer, options: { bigEndian?: boolean; serial?: number } = {}): Buffer {
  const head = new Writer(options);
  head.write('y', (options.bigEndian === true ? 'B' : 'l').charCodeAt(0));
  head.write('y', MessageType.reply);
  head.write('y', 0);
  head.write('y', 1);
  head.write('u', body.length);
  head.write('u', options.serial ?? 7);
  head.write('a(yv)', [
    [5, ['u', replySerial]],
    [8, ['g', signature]],
  ]);
  head.align(8);
  head.writeRaw(body);
  return Buffer.from(head.bytes());
}

/** A u32 in the byte order asked (an array's length claim, written by hand). */
export function u32(value: number, options: { bigEndian?: boolean } = {}): Buffer {
  const b = Buffer.alloc(4);
  if (options.bigEndian === true) b.writeUInt32BE(value);
  else b.writeUInt32LE(value);
  return b;
}
