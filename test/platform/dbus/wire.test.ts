// The D-Bus wire format crawl speaks to the Secret Service: what it writes reads back the same,
// and what a hostile or broken bus sends is refused with a WireError, never read past its end.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeMessage, encodeMessage, messageLength, MessageType, splitSignature, WireError, type DBusValue, type Message } from '../../../src/platform/dbus/wire.js';

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const text = fc.string({ maxLength: 40 }).filter((s) => !s.includes('\0'));
const path = fc.array(fc.stringMatching(/^[A-Za-z0-9_]{1,8}$/), { minLength: 1, maxLength: 4 }).map((parts) => '/' + parts.join('/'));

/** A body of the shapes the Secret Service uses: strings, paths, dicts, a secret struct, variants, booleans, bytes. */
const body = fc.tuple(
  text,
  path,
  fc.array(fc.tuple(text, text), { maxLength: 5 }),
  fc.tuple(path, fc.uint8Array({ maxLength: 16 }), fc.uint8Array({ maxLength: 64 }), text),
  fc.boolean(),
  u32,
  fc.array(path, { maxLength: 4 }),
  text,
);
const SIGNATURE = 'soa{ss}(oayays)buaov';

function message(values: [string, string, [string, string][], [string, Uint8Array, Uint8Array, string], boolean, number, string[], string]): Message {
  const [s, o, dict, [sp, params, secret, type], b, u, paths, variant] = values;
  const bodyValues: DBusValue[] = [s, o, dict, [sp, Buffer.from(params), Buffer.from(secret), type], b, u, paths, ['s', variant]];
  return { type: MessageType.call, flags: 0, serial: 7, path: '/org/freedesktop/secrets', interface: 'org.freedesktop.Secret.Service', member: 'X', destination: 'org.freedesktop.secrets', signature: SIGNATURE, body: bodyValues };
}

describe('the D-Bus wire format', () => {
  it('splits signatures into complete types', () => {
    expect(splitSignature('a{sv}(oayays)b')).toEqual(['a{sv}', '(oayays)', 'b']);
    expect(() => splitSignature('a{ss')).toThrow(WireError);
  });

  it('a message reads back as it was written, at the length its header gives', () => {
    fc.assert(
      fc.property(body, (values) => {
        const m = message(values);
        const bytes = encodeMessage(m);
        expect(messageLength(bytes)).toBe(bytes.length);
        const back = decodeMessage(bytes);
        expect(back.signature).toBe(SIGNATURE);
        expect(back.member).toBe('X');
        expect(back.body).toEqual(m.body);
      }),
    );
  });

  it('a message cut anywhere is refused, never read past its end', () => {
    fc.assert(
      fc.property(body, fc.nat(), (values, at) => {
        const bytes = encodeMessage(message(values));
        const cut = 16 + (at % (bytes.length - 16));
        expect(() => decodeMessage(bytes.subarray(0, cut))).toThrow(WireError);
      }),
    );
  });

  it('a length beyond any real message is refused before it is buffered', () => {
    const header = Buffer.alloc(16);
    header.write('l', 0);
    header.writeUInt32LE(0x7fffffff, 4);
    expect(() => messageLength(header)).toThrow(/bytes/);
  });
});
