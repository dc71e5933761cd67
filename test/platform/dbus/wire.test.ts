// The D-Bus wire format crawl speaks to the Secret Service: what it writes reads back the same, in
// either byte order; and what a hostile or broken bus sends is refused with a WireError, read in
// work linear in its size (counted, test/support/linear.ts), never read past its end.
import { describe, expect, it } from 'vitest';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  decodeMessage,
  encodeMessage,
  MAX_MESSAGE_BYTES,
  messageLength,
  MessageType,
  parseSignature,
  signatureOf,
  splitSignature,
  WireError,
  type DBusValue,
  type Message,
  type WireType,
} from '../../../src/platform/dbus/wire.js';
import { rawReply, u32 } from '../../support/fake-bus.js';
import { byteWork } from '../../support/linear.js';

const u32s = fc.integer({ min: 0, max: 0xffffffff });
const text = fc.string({ maxLength: 24, unit: fc.oneof(fc.integer({ min: 1, max: 0x7f }), fc.integer({ min: 0x80, max: 0xd7ff }), fc.integer({ min: 0xe000, max: 0x10ffff })).map((c) => String.fromCodePoint(c)) });
const path = fc.array(fc.stringMatching(/^[A-Za-z0-9_]{1,8}$/), { maxLength: 4 }).map((parts) => '/' + parts.join('/'));

/** Any complete type the specification allows, nested a few deep (the limits have tests of their own). */
const { type: anyType } = fc.letrec<{ type: WireType; basic: WireType }>((tie) => ({
  basic: fc.constantFrom(...'ybnqiuxtdhsog'.split('')).map((code) => ({ code }) as WireType),
  type: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('basic'),
    fc.constant({ code: 'v' } as WireType),
    tie('type').map((element) => ({ code: 'a', element }) as WireType),
    fc.array(tie('type'), { minLength: 1, maxLength: 4 }).map((members) => ({ code: '(', members }) as WireType),
    fc.tuple(tie('basic'), tie('type')).map(([key, value]) => ({ code: 'a', element: { code: '{', key, value } }) as WireType),
  ),
}));

/** A value of `type`; a variant holds a value of a type of its own, `depth` more times at most. */
function valueOf(type: WireType, depth = 2): fc.Arbitrary<DBusValue> {
  switch (type.code) {
    case 'y':
      return fc.integer({ min: 0, max: 0xff });
    case 'b':
      return fc.boolean();
    case 'n':
      return fc.integer({ min: -0x8000, max: 0x7fff });
    case 'q':
      return fc.integer({ min: 0, max: 0xffff });
    case 'i':
      return fc.integer({ min: -0x80000000, max: 0x7fffffff });
    case 'u':
    case 'h':
      return u32s;
    case 'x':
      return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case 't':
      return fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
    case 'd':
      return fc.double();
    case 's':
      return text;
    case 'o':
      return path;
    case 'g':
      return fc.array(anyType, { maxLength: 3 }).map((types) => types.map(signatureOf).join('')).filter((s) => s.length <= 255);
    case 'v': {
      const inner = depth > 0 ? anyType : fc.constant({ code: 's' } as WireType);
      return inner.chain((t) => valueOf(t, depth - 1).map((v) => [signatureOf(t), v] as DBusValue));
    }
    case 'a':
      if (type.element.code === 'y') return fc.uint8Array({ maxLength: 16 }).map((bytes) => Buffer.from(bytes));
      return fc.array(valueOf(type.element, depth), { maxLength: 3 });
    case '(':
      return fc.tuple(...type.members.map((member) => valueOf(member, depth)));
    case '{':
      return fc.tuple(valueOf(type.key, depth), valueOf(type.value, depth));
  }
}

/** A reply whose body is any values of any types. */
const anyReply: fc.Arbitrary<Message> = fc
  .array(anyType, { maxLength: 4 })
  .filter((types) => types.map(signatureOf).join('').length <= 255)
  .chain((types) => fc.tuple(fc.constant(types), fc.tuple(...types.map((t) => valueOf(t))), fc.integer({ min: 1, max: 0xffffffff })))
  .map(([types, body, serial]) => ({ type: MessageType.reply, flags: 0, serial, replySerial: 3, sender: ':1.7', signature: types.map(signatureOf).join(''), body }));

/** The size of a decoded value: one a node, and each character or byte it holds. */
function sizeOf(value: DBusValue): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, v) => sum + sizeOf(v), 1);
  if (typeof value === 'string' || Buffer.isBuffer(value)) return 1 + value.length;
  return 1;
}

/** Decoded, or refused with a WireError, and nothing else, in work and memory linear in its size. */
function decodedOrRefused(bytes: Buffer): Message | WireError {
  let result: Message | WireError | undefined;
  const limit = 4 * bytes.length + 64;
  const work = byteWork(() => {
    try {
      const length = messageLength(bytes);
      result = length === undefined ? new WireError('short') : decodeMessage(bytes.subarray(0, Math.min(length, bytes.length)));
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      result = error;
    }
  }, limit);
  // Called hundreds of times a property: node's assert, the checks expect makes, without what
  // vitest's expect adds to every call (its state, copied each time).
  assert.ok(work <= limit, `expected ${work} reads to be at most ${limit}`);
  if (result instanceof WireError) assert.doesNotMatch(result.message, /[\n\r]/);
  else {
    const size = sizeOf((result as Message).body);
    assert.ok(size <= 2 * bytes.length, `expected a body of ${size} to be at most ${2 * bytes.length}`);
  }
  return result as Message | WireError;
}

describe('signatures, checked as the specification checks them', () => {
  it('splits a signature into its complete types', () => {
    expect(splitSignature('a{sv}(oayays)b')).toEqual(['a{sv}', '(oayays)', 'b']);
    expect(splitSignature('')).toEqual([]);
  });

  it('refuses every form the specification forbids', () => {
    const refused = [
      '()', // an empty struct
      'a()',
      '(())',
      '{sv}', // a dict entry outside an array
      '({sv})',
      'a{vs}', // a key that is not a basic type
      'a{(s)s}',
      'a{ass}',
      'a{s}', // a dict entry of one type, or three
      'a{sss}',
      'a{}',
      'a', // an array of nothing
      'aa',
      '(s', // unbalanced
      's)',
      'a{sv',
      '}',
      'z', // not a type code
      'r', // reserved: a struct's name in bindings, never on the wire
      'e',
      'm',
      '*',
      '\0',
      's\n',
      'a'.repeat(33) + 'y', // 33 nested arrays
      '('.repeat(33) + 'y' + ')'.repeat(33), // 33 nested structs
      `a${'(a'.repeat(32)}y${')'.repeat(32)}`, // 33 arrays nested through structs
      'y'.repeat(256), // longer than 255
    ];
    for (const signature of refused) expect(() => parseSignature(signature), JSON.stringify(signature)).toThrow(WireError);
  });

  it('takes the limits themselves: 32 nested arrays, 32 nested structs, both at once, 255 characters', () => {
    for (const signature of ['a'.repeat(32) + 'y', '('.repeat(32) + 'y' + ')'.repeat(32), 'a'.repeat(32) + '('.repeat(32) + 'y' + ')'.repeat(32), 'y'.repeat(255), 'a{sa{sv}}', 'a{yv}', 'a{oa{sv}}', '(oayays)', 'h', 'g', 'av']) {
      expect(() => parseSignature(signature), signatureOf.name + signature).not.toThrow();
    }
  });

  it('an error names the signature on one line, its control characters escaped', () => {
    expect(() => parseSignature('a()')).toThrow('D-Bus signature "a()" holds an empty struct');
    expect(() => parseSignature('s\n\u001b')).toThrow('D-Bus signature "s\\n\\u001b" holds "\\n" where a type should be');
  });
});

describe('messages', () => {
  it('any values of any types read back as written, little-endian and big-endian, at the length their header gives', () => {
    fc.assert(
      fc.property(anyReply, fc.boolean(), (m, bigEndian) => {
        const bytes = encodeMessage(m, { bigEndian });
        assert.equal(bytes[0], (bigEndian ? 'B' : 'l').charCodeAt(0));
        assert.equal(messageLength(bytes), bytes.length);
        const back = decodeMessage(bytes);
        expect(back).toEqual(m);
      }),
      { numRuns: 100 },
    );
  });

  it('reads a big-endian message written by hand, byte by byte as the specification lays it out', () => {
    const hex = [
      '42 02 00 01', // "B", a method return, no flags, protocol version 1
      '00 00 00 0c', // body: 12 bytes
      '00 00 00 09', // serial 9
      '00 00 00 10', // header fields: 16 bytes
      '05 01 75 00 00 00 00 03', // (reply serial, variant "u" 3)
      '08 01 67 00 02 61 79 00', // (signature, variant "g" "ay"); the header ends at 32, a multiple of 8
      '00 00 00 08 c3 a9 74 c3 a9 21 0a ff', // body: an array of 8 bytes
    ].join(' ');
    const bytes = Buffer.from(hex.replace(/ /g, ''), 'hex');
    expect(messageLength(bytes)).toBe(44);
    expect(decodeMessage(bytes)).toEqual({ type: MessageType.reply, flags: 0, serial: 9, replySerial: 3, signature: 'ay', body: [Buffer.from('c3a974c3a9210aff', 'hex')] });
  });

  it('a message cut anywhere is refused, never read past its end', () => {
    fc.assert(
      fc.property(anyReply, fc.boolean(), fc.nat(), (m, bigEndian, at) => {
        const bytes = encodeMessage(m, { bigEndian });
        const cut = 16 + (at % (bytes.length - 16));
        assert.throws(() => decodeMessage(bytes.subarray(0, cut)), WireError);
      }),
    );
  });

  it('an array of empty structs with a length claim is refused at once (it was read for ever)', () => {
    const bytes = rawReply(3, 'a()', Buffer.concat([u32(8), Buffer.alloc(12)]));
    expect(decodedOrRefused(bytes)).toEqual(new WireError('D-Bus signature "a()" holds an empty struct'));
  });

  it('lengths past the limits are refused before anything of that size is made', () => {
    // An array claiming 200 MB in a small message.
    const claim = rawReply(3, 'ay', u32(200_000_000));
    expect(decodedOrRefused(claim)).toEqual(new WireError('a D-Bus array of 200000000 bytes (at most 67108864)'));
    const inside = rawReply(3, 'ay', u32(60_000_000));
    expect(decodedOrRefused(inside)).toEqual(new WireError('a D-Bus array ends past its message'));
    // A header claiming a 200 MB body, or a header fields array as long: refused from the fixed header alone.
    const header = Buffer.alloc(16);
    header.write('l', 0);
    header.writeUInt8(1, 3);
    header.writeUInt32LE(200_000_000, 4);
    expect(() => messageLength(header)).toThrow(`a D-Bus message of ${200_000_016} bytes (crawl reads at most ${MAX_MESSAGE_BYTES})`);
    header.writeUInt32LE(0, 4);
    header.writeUInt32LE(0xffffffff, 12);
    expect(() => messageLength(header)).toThrow(/crawl reads at most/);
  });

  it('refuses what the specification calls invalid in a header and a body', () => {
    const ok = (m: Partial<Message> = {}): Message => ({ type: MessageType.reply, flags: 0, serial: 4, replySerial: 3, signature: 's', body: ['x'], ...m });
    const refused: [string, Buffer][] = [
      ['neither l nor B', Buffer.concat([Buffer.from('x'), encodeMessage(ok()).subarray(1)])],
      ['version 2', Buffer.concat([encodeMessage(ok()).subarray(0, 3), Buffer.from([2]), encodeMessage(ok()).subarray(4)])],
      ['serial 0', encodeMessage(ok({ serial: 0 }))],
      ['a reply without its reply serial', encodeMessage({ type: MessageType.reply, flags: 0, serial: 4, signature: '', body: [] })],
      ['an error without its name', encodeMessage({ type: MessageType.error, flags: 0, serial: 4, replySerial: 3, signature: '', body: [] })],
      ['a signal without a member', encodeMessage({ type: MessageType.signal, flags: 0, serial: 4, path: '/a', interface: 'a.b', signature: '', body: [] })],
      ['a boolean of 2', rawReply(3, 'b', u32(2))],
      ['a string with a NUL inside', rawReply(3, 's', Buffer.concat([u32(3), Buffer.from('a\0b\0')]))],
      ['a string without its NUL', rawReply(3, 's', Buffer.concat([u32(3), Buffer.from('abcd')]))],
      ['a string that is not UTF-8', rawReply(3, 's', Buffer.concat([u32(2), Buffer.from([0xc3, 0x28, 0])]))],
      ['an object path that is not one', rawReply(3, 'o', Buffer.concat([u32(3), Buffer.from("/a'\0")]))],
      ['a variant of two types', rawReply(3, 'v', Buffer.from([2, 0x73, 0x73, 0]))],
      ['a variant of an invalid type', rawReply(3, 'v', Buffer.from([3, 0x61, 0x28, 0x29, 0]))],
      ['padding that is not NUL', rawReply(3, 'yu', Buffer.from([1, 9, 0, 0, 5, 0, 0, 0]))],
      ['a body longer than its signature', rawReply(3, 'y', Buffer.from([1, 2]))],
      ['a body and no signature', rawReply(3, '', Buffer.from([1]))],
      ['an array whose elements overrun it', rawReply(3, 'au', Buffer.concat([u32(6), u32(1), u32(2)]))],
    ];
    for (const [what, bytes] of refused) expect(decodedOrRefused(bytes), what).toBeInstanceOf(WireError);
  });

  it('refuses variants nested more than 64 deep, and takes 64', () => {
    const nested = (depth: number): DBusValue => (depth === 0 ? ['y', 1] : ['v', nested(depth - 1)]);
    const message = (depth: number): Buffer => encodeMessage({ type: MessageType.reply, flags: 0, serial: 4, replySerial: 3, signature: 'v', body: [nested(depth - 1)] });
    expect(decodedOrRefused(message(64))).not.toBeInstanceOf(WireError);
    expect(decodedOrRefused(message(65))).toEqual(new WireError('a D-Bus value nested more than 64 deep'));
  });

  it('any signature, valid or not, with any body: decoded or refused, in work and memory linear in its size', () => {
    const signature = fc.oneof(
      fc.string({ unit: fc.constantFrom(...'ybnqiuxtdhsogva(){}'.split('')), maxLength: 24 }),
      fc.string({ unit: 'binary-ascii', maxLength: 12 }),
      anyType.map(signatureOf),
      {
        // A valid signature with a piece of a forbidden one spliced in: most of it reads as it should.
        weight: 4,
        arbitrary: fc
          .tuple(fc.array(anyType, { maxLength: 2 }), fc.constantFrom('()', 'a()', 'a(())', '{sv}', 'a{vs}', 'a', '(', ')', '}', 'a{s}', 'z'), fc.nat())
          .map(([types, piece, at]) => {
            const valid = types.map(signatureOf).join('');
            const i = at % (valid.length + 1);
            return valid.slice(0, i) + piece + valid.slice(i);
          }),
      },
    );
    const claim = fc.oneof(fc.integer({ min: 1, max: 16 }), fc.constantFrom(0, 64, 0x7fffffff, 200_000_000, 0xffffffff));
    // Pieces of a body: any bytes, NUL bytes (the padding a reader checks), and length claims
    // followed by the padding an array's elements start after.
    const body = (bigEndian: boolean): fc.Arbitrary<Buffer> => {
      const claimed = fc.tuple(claim, fc.integer({ min: 0, max: 12 })).map(([n, pad]) => Buffer.concat([u32(n, { bigEndian }), Buffer.alloc(pad)]));
      const piece = fc.oneof(fc.uint8Array({ maxLength: 16 }), fc.integer({ min: 1, max: 16 }).map((n) => new Uint8Array(n)), claimed);
      // Half start with a claim: the first value of a body is where a length is read first.
      return fc.tuple(fc.option(claimed), fc.array(piece, { maxLength: 6 })).map(([first, parts]) => Buffer.concat(first === null ? parts : [first, ...parts]));
    };
    fc.assert(
      fc.property(
        signature,
        fc.boolean().chain((bigEndian) => fc.tuple(fc.constant(bigEndian), body(bigEndian))),
        (sig, [bigEndian, bytes]) => {
          decodedOrRefused(rawReply(3, sig, bytes, { bigEndian }));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('any bytes, and any message with bytes overwritten: decoded or refused, in work and memory linear in its size', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 256 }), (bytes) => {
        decodedOrRefused(Buffer.from(bytes));
      }),
      { numRuns: 150 },
    );
    fc.assert(
      fc.property(anyReply, fc.boolean(), fc.array(fc.tuple(fc.nat(), fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constant(-1))), { minLength: 1, maxLength: 4 }), (m, bigEndian, edits) => {
        const bytes = Buffer.from(encodeMessage(m, { bigEndian }));
        for (const [at, value] of edits) {
          const i = at % bytes.length;
          // -1: a large length claim wherever a u32 may sit.
          if (value === -1 && i + 4 <= bytes.length) bytes.writeUInt32LE(0x7ffffff0, i - (i % 4));
          else bytes[i] = value & 0xff;
        }
        decodedOrRefused(bytes);
      }),
      { numRuns: 150 },
    );
  });
});
