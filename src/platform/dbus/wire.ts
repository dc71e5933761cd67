// The D-Bus wire format, as far as crawl speaks it: the Secret Service's calls and the bus's own.
// Values map to JavaScript as: y n q i u h d -> number, x t -> bigint, b -> boolean, s o g ->
// string, ay -> Buffer, a<T> -> array (a dict a{KV} -> array of [key, value] pairs), (...) ->
// array of members, v -> [signature, value]. crawl writes little-endian; it reads both byte orders,
// since any peer may send big-endian and the bus passes it on as it is.
//
// What a bus sends is hostile input. Every signature is checked as the specification checks it
// (type codes, no empty struct, dict entries only in arrays with a basic key, nesting, length)
// and parsed once, before any value is read; every length is checked against the bytes there, and
// every element of an array must consume bytes: a message is read in work linear in its size, or
// refused with a WireError.

export type DBusValue = number | bigint | boolean | string | DBusValue[] | Buffer | Variant;
export type Variant = [signature: string, value: DBusValue];

export class WireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireError';
  }
}

/** A complete type, parsed from a signature. */
export type WireType =
  | { code: 'y' | 'b' | 'n' | 'q' | 'i' | 'u' | 'x' | 't' | 'd' | 'h' | 's' | 'o' | 'g' | 'v' }
  | { code: 'a'; element: WireType }
  | { code: '('; members: WireType[] }
  | { code: '{'; key: WireType; value: WireType };

/** The specification's limits. */
const MAX_SIGNATURE = 255;
const MAX_ARRAY_NESTING = 32;
const MAX_STRUCT_NESTING = 32;
/** Arrays, structs, dict entries and variants, one in another, as a message holds them. */
const MAX_DEPTH = 64;
const MAX_ARRAY_BYTES = 64 * 1024 * 1024;

const BASIC = new Set(['y', 'b', 'n', 'q', 'i', 'u', 'x', 't', 'd', 'h', 's', 'o', 'g']);
const ALIGN: Record<string, number> = { y: 1, g: 1, v: 1, n: 2, q: 2, b: 4, i: 4, u: 4, h: 4, s: 4, o: 4, a: 4, x: 8, t: 8, d: 8, '(': 8, '{': 8 };

/** A signature for an error message: quoted, control characters escaped, cut short. */
function shown(signature: string): string {
  const quoted = JSON.stringify(signature.length > 40 ? `${signature.slice(0, 40)}…` : signature);
  return quoted.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The complete types of a signature, checked as the specification requires; throws WireError. */
export function parseSignature(signature: string): WireType[] {
  if (signature.length > MAX_SIGNATURE) throw new WireError(`a D-Bus signature of ${signature.length} characters (at most ${MAX_SIGNATURE})`);
  const at = { i: 0 };
  const types: WireType[] = [];
  while (at.i < signature.length) types.push(parseType(signature, at, 0, 0, 0));
  return types;
}

/** The one complete type `signature` is (a variant's, an array's element); throws WireError otherwise. */
export function parseSingleType(signature: string): WireType {
  const types = parseSignature(signature);
  if (types.length !== 1) throw new WireError(`D-Bus signature ${shown(signature)} is not one complete type`);
  return types[0] as WireType;
}

function parseType(signature: string, at: { i: number }, arrays: number, structs: number, dicts: number): WireType {
  const c = signature.charAt(at.i);
  at.i += 1;
  if (BASIC.has(c) || c === 'v') return { code: c } as WireType;
  const bad = (why: string): WireError => new WireError(`D-Bus signature ${shown(signature)} ${why}`);
  switch (c) {
    case 'a': {
      if (arrays + 1 > MAX_ARRAY_NESTING) throw bad(`nests more than ${MAX_ARRAY_NESTING} arrays`);
      if (at.i >= signature.length) throw bad('ends with an array of nothing');
      if (signature.charAt(at.i) !== '{') return { code: 'a', element: parseType(signature, at, arrays + 1, structs, dicts) };
      at.i += 1;
      if (dicts + 1 > MAX_STRUCT_NESTING) throw bad(`nests more than ${MAX_STRUCT_NESTING} dict entries`);
      if (!BASIC.has(signature.charAt(at.i))) throw bad('has a dict entry whose key is not a basic type');
      const key = parseType(signature, at, arrays + 1, structs, dicts + 1);
      if (at.i >= signature.length || signature.charAt(at.i) === '}') throw bad('has a dict entry without a value');
      const value = parseType(signature, at, arrays + 1, structs, dicts + 1);
      if (signature.charAt(at.i) !== '}') throw bad('has a dict entry of more than a key and a value, or no end');
      at.i += 1;
      return { code: 'a', element: { code: '{', key, value } };
    }
    case '(': {
      if (structs + 1 > MAX_STRUCT_NESTING) throw bad(`nests more than ${MAX_STRUCT_NESTING} structs`);
      const members: WireType[] = [];
      while (signature.charAt(at.i) !== ')') {
        if (at.i >= signature.length) throw bad('has a struct without its end');
        members.push(parseType(signature, at, arrays, structs + 1, dicts));
      }
      at.i += 1;
      if (members.length === 0) throw bad('holds an empty struct');
      return { code: '(', members };
    }
    case '{':
      throw bad('has a dict entry outside an array');
    case ')':
    case '}':
      throw bad('closes what it did not open');
    default:
      throw bad(`holds ${c === '' ? 'nothing' : `"${shown(c).slice(1, -1)}"`} where a type should be`);
  }
}

/** The complete types of a signature, as signature text, in order ("sa{ss}" -> ["s", "a{ss}"]). */
export function splitSignature(signature: string): string[] {
  return parseSignature(signature).map(signatureOf);
}

export function signatureOf(type: WireType): string {
  switch (type.code) {
    case 'a':
      return `a${signatureOf(type.element)}`;
    case '(':
      return `(${type.members.map(signatureOf).join('')})`;
    case '{':
      return `{${signatureOf(type.key)}${signatureOf(type.value)}}`;
    default:
      return type.code;
  }
}

export class Writer {
  #buf = Buffer.alloc(256);
  #len = 0;
  readonly #little: boolean;

  /** Little-endian, as crawl writes; big-endian only for a test that plays a peer that writes it. */
  constructor(options: { bigEndian?: boolean } = {}) {
    this.#little = options.bigEndian !== true;
  }

  get length(): number {
    return this.#len;
  }

  bytes(): Buffer {
    return this.#buf.subarray(0, this.#len);
  }

  #room(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    const next = Buffer.alloc(Math.max(this.#buf.length * 2, this.#len + n));
    this.#buf.copy(next, 0, 0, this.#len);
    this.#buf = next;
  }

  align(n: number): void {
    const pad = (n - (this.#len % n)) % n;
    this.#room(pad);
    this.#buf.fill(0, this.#len, this.#len + pad);
    this.#len += pad;
  }

  /** Writes a fixed-size number of `size` bytes, aligned to its size. */
  #fixed(size: number, put: (buf: Buffer, at: number) => void): void {
    this.align(size);
    this.#room(size);
    put(this.#buf, this.#len);
    this.#len += size;
  }

  #u8(v: number): void {
    this.#room(1);
    this.#buf.writeUInt8(v, this.#len);
    this.#len += 1;
  }

  #u32(v: number): void {
    this.#fixed(4, (b, at) => (this.#little ? b.writeUInt32LE(v, at) : b.writeUInt32BE(v, at)));
  }

  #raw(bytes: Uint8Array): void {
    this.#room(bytes.length);
    this.#buf.set(bytes, this.#len);
    this.#len += bytes.length;
  }

  /** Overwrites the u32 at `at` (an array's length, known once its elements are written). */
  patchU32(at: number, v: number): void {
    if (this.#little) this.#buf.writeUInt32LE(v, at);
    else this.#buf.writeUInt32BE(v, at);
  }

  /** Writes `value` as the one complete type `type` ("a{sv}"). */
  write(type: string | WireType, value: DBusValue): void {
    this.#write(typeof type === 'string' ? parseSingleType(type) : type, value);
  }

  /** Bytes as they are, after the bytes written so far (a test building a message no daemon would send). */
  writeRaw(bytes: Uint8Array): void {
    this.#raw(bytes);
  }

  #write(type: WireType, value: DBusValue): void {
    const little = this.#little;
    switch (type.code) {
      case 'y':
        return this.#u8(value as number);
      case 'b':
        return this.#u32(value ? 1 : 0);
      case 'n':
        return this.#fixed(2, (b, at) => (little ? b.writeInt16LE(value as number, at) : b.writeInt16BE(value as number, at)));
      case 'q':
        return this.#fixed(2, (b, at) => (little ? b.writeUInt16LE(value as number, at) : b.writeUInt16BE(value as number, at)));
      case 'i':
        return this.#fixed(4, (b, at) => (little ? b.writeInt32LE(value as number, at) : b.writeInt32BE(value as number, at)));
      case 'u':
      case 'h':
        return this.#u32(value as number);
      case 'x':
        return this.#fixed(8, (b, at) => (little ? b.writeBigInt64LE(BigInt(value as bigint), at) : b.writeBigInt64BE(BigInt(value as bigint), at)));
      case 't':
        return this.#fixed(8, (b, at) => (little ? b.writeBigUInt64LE(BigInt(value as bigint), at) : b.writeBigUInt64BE(BigInt(value as bigint), at)));
      case 'd':
        return this.#fixed(8, (b, at) => (little ? b.writeDoubleLE(value as number, at) : b.writeDoubleBE(value as number, at)));
      case 's':
      case 'o': {
        const bytes = Buffer.from(value as string, 'utf8');
        this.#u32(bytes.length);
        this.#raw(bytes);
        return this.#u8(0);
      }
      case 'g': {
        const bytes = Buffer.from(value as string, 'latin1');
        this.#u8(bytes.length);
        this.#raw(bytes);
        return this.#u8(0);
      }
      case 'v': {
        const [signature, inner] = value as Variant;
        this.#write({ code: 'g' }, signature);
        return this.#write(parseSingleType(signature), inner);
      }
      case 'a': {
        this.#u32(0);
        const lengthAt = this.#len - 4;
        this.align(ALIGN[type.element.code] as number);
        const start = this.#len;
        if (type.element.code === 'y' && value instanceof Uint8Array) this.#raw(value);
        else for (const item of value as DBusValue[]) this.#write(type.element, item);
        this.patchU32(lengthAt, this.#len - start);
        return;
      }
      case '(': {
        this.align(8);
        const values = value as DBusValue[];
        type.members.forEach((member, i) => this.#write(member, values[i] as DBusValue));
        return;
      }
      case '{': {
        this.align(8);
        const [k, v] = value as [DBusValue, DBusValue];
        this.#write(type.key, k);
        return this.#write(type.value, v);
      }
    }
  }
}

const OBJECT_PATH = /^\/(?:[A-Za-z0-9_]+(?:\/[A-Za-z0-9_]+)*)?$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export class Reader {
  readonly #buf: Buffer;
  readonly #little: boolean;
  #pos: number;
  #depth = 0;

  constructor(buf: Buffer, options: { bigEndian?: boolean; position?: number } = {}) {
    this.#buf = buf;
    this.#little = options.bigEndian !== true;
    this.#pos = options.position ?? 0;
  }

  get position(): number {
    return this.#pos;
  }

  #need(n: number): void {
    if (this.#pos + n > this.#buf.length) throw new WireError('the D-Bus message ends early');
  }

  /** Skips the padding to a multiple of `n`, which must be there and be NUL bytes. */
  align(n: number): void {
    const pad = (n - (this.#pos % n)) % n;
    this.#need(pad);
    for (let i = 0; i < pad; i++) {
      if (this.#buf.readUInt8(this.#pos + i) !== 0) throw new WireError('the D-Bus message has padding that is not NUL bytes');
    }
    this.#pos += pad;
  }

  #fixed<T>(size: number, get: (buf: Buffer, at: number) => T): T {
    this.align(size);
    this.#need(size);
    const v = get(this.#buf, this.#pos);
    this.#pos += size;
    return v;
  }

  #u8(): number {
    this.#need(1);
    return this.#buf.readUInt8(this.#pos++);
  }

  #u32(): number {
    return this.#fixed(4, (b, at) => (this.#little ? b.readUInt32LE(at) : b.readUInt32BE(at)));
  }

  /** `length` bytes then a NUL, none inside: the text, once it is known to be UTF-8. */
  #text(length: number, what: string): string {
    this.#need(length + 1);
    const start = this.#pos;
    if (this.#buf.indexOf(0, start) !== start + length) throw new WireError(`a D-Bus ${what} holds a NUL byte or lacks its end`);
    this.#pos += length + 1;
    try {
      return UTF8.decode(this.#buf.subarray(start, start + length));
    } catch {
      throw new WireError(`a D-Bus ${what} is not UTF-8`);
    }
  }

  /** Reads the one complete type `type` ("a{sv}"). */
  read(type: string | WireType): DBusValue {
    return this.#read(typeof type === 'string' ? parseSingleType(type) : type);
  }

  #read(type: WireType): DBusValue {
    const little = this.#little;
    switch (type.code) {
      case 'y':
        return this.#u8();
      case 'b': {
        const v = this.#u32();
        if (v > 1) throw new WireError(`a D-Bus boolean of ${v}`);
        return v === 1;
      }
      case 'n':
        return this.#fixed(2, (b, at) => (little ? b.readInt16LE(at) : b.readInt16BE(at)));
      case 'q':
        return this.#fixed(2, (b, at) => (little ? b.readUInt16LE(at) : b.readUInt16BE(at)));
      case 'i':
        return this.#fixed(4, (b, at) => (little ? b.readInt32LE(at) : b.readInt32BE(at)));
      case 'u':
      case 'h':
        return this.#u32();
      case 'x':
        return this.#fixed(8, (b, at) => (little ? b.readBigInt64LE(at) : b.readBigInt64BE(at)));
      case 't':
        return this.#fixed(8, (b, at) => (little ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at)));
      case 'd':
        return this.#fixed(8, (b, at) => (little ? b.readDoubleLE(at) : b.readDoubleBE(at)));
      case 's':
        return this.#text(this.#u32(), 'string');
      case 'o': {
        const path = this.#text(this.#u32(), 'object path');
        if (!OBJECT_PATH.test(path)) throw new WireError('a D-Bus object path that is not one');
        return path;
      }
      case 'g': {
        const signature = this.#text(this.#u8(), 'signature');
        parseSignature(signature);
        return signature;
      }
      case 'v':
        return this.#nested(() => {
          const signature = this.#text(this.#u8(), 'signature');
          return [signature, this.#read(parseSingleType(signature))];
        });
      case 'a':
        return this.#nested(() => this.#array(type.element));
      case '(':
        return this.#nested(() => {
          this.align(8);
          const members: DBusValue[] = [];
          for (const member of type.members) members.push(this.#read(member));
          return members;
        });
      case '{':
        return this.#nested(() => {
          this.align(8);
          const entry: DBusValue[] = [];
          entry.push(this.#read(type.key));
          entry.push(this.#read(type.value));
          return entry;
        });
    }
  }

  #nested<T>(read: () => T): T {
    if (++this.#depth > MAX_DEPTH) throw new WireError(`a D-Bus value nested more than ${MAX_DEPTH} deep`);
    try {
      return read();
    } finally {
      this.#depth--;
    }
  }

  #array(element: WireType): DBusValue {
    const length = this.#u32();
    if (length > MAX_ARRAY_BYTES) throw new WireError(`a D-Bus array of ${length} bytes (at most ${MAX_ARRAY_BYTES})`);
    // The padding to the first element is there even when the array is empty.
    this.align(ALIGN[element.code] as number);
    const end = this.#pos + length;
    if (end > this.#buf.length) throw new WireError('a D-Bus array ends past its message');
    if (element.code === 'y') {
      const bytes = Buffer.from(this.#buf.subarray(this.#pos, end));
      this.#pos = end;
      return bytes;
    }
    const items: DBusValue[] = [];
    while (this.#pos < end) {
      const before = this.#pos;
      items.push(this.#read(element));
      // No valid type is read in no bytes; this keeps the loop finite whatever a signature is.
      if (this.#pos <= before) throw new WireError('a D-Bus array element took no bytes');
    }
    if (this.#pos !== end) throw new WireError('a D-Bus array length does not match its elements');
    return items;
  }
}

export const MessageType = { call: 1, reply: 2, error: 3, signal: 4 } as const;

export interface Message {
  type: number;
  flags: number;
  serial: number;
  path?: string;
  interface?: string;
  member?: string;
  errorName?: string;
  replySerial?: number;
  destination?: string;
  sender?: string;
  signature: string;
  body: DBusValue[];
}

const FIELD = { path: 1, interface: 2, member: 3, errorName: 4, replySerial: 5, destination: 6, sender: 7, signature: 8 } as const;
const FIELD_TYPE: Record<number, string> = { 1: 'o', 2: 's', 3: 's', 4: 's', 5: 'u', 6: 's', 7: 's', 8: 'g', 9: 'u' };
/** The header fields each known message type must carry. */
const REQUIRED: Record<number, number[]> = {
  [MessageType.call]: [FIELD.path, FIELD.member],
  [MessageType.reply]: [FIELD.replySerial],
  [MessageType.error]: [FIELD.errorName, FIELD.replySerial],
  [MessageType.signal]: [FIELD.path, FIELD.interface, FIELD.member],
};
const HEADER_FIELDS: WireType = parseSingleType('a(yv)');

/**
 * No message crawl takes part in comes near this (the specification allows 128 MiB); a larger
 * length is a broken or hostile peer, refused before its bytes are buffered.
 */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

const LITTLE = 'l'.charCodeAt(0);
const BIG = 'B'.charCodeAt(0);

/** `m` as bytes: little-endian (big-endian only for a test playing a peer that sends it). */
export function encodeMessage(m: Message, options: { bigEndian?: boolean } = {}): Buffer {
  const body = new Writer(options);
  const types = parseSignature(m.signature);
  if (types.length !== m.body.length) throw new WireError(`signature ${shown(m.signature)} does not match ${m.body.length} values`);
  types.forEach((type, i) => body.write(type, m.body[i] as DBusValue));
  const fields: DBusValue[] = [];
  const add = (code: number, value: string | number | undefined): void => {
    if (value !== undefined && value !== '') fields.push([code, [FIELD_TYPE[code] as string, value]]);
  };
  add(FIELD.path, m.path);
  add(FIELD.interface, m.interface);
  add(FIELD.member, m.member);
  add(FIELD.errorName, m.errorName);
  add(FIELD.replySerial, m.replySerial);
  add(FIELD.destination, m.destination);
  add(FIELD.sender, m.sender);
  add(FIELD.signature, m.signature);
  const head = new Writer(options);
  head.write('y', options.bigEndian === true ? BIG : LITTLE);
  head.write('y', m.type);
  head.write('y', m.flags);
  head.write('y', 1);
  head.write('u', body.length);
  head.write('u', m.serial);
  head.write(HEADER_FIELDS, fields);
  head.align(8);
  return Buffer.concat([head.bytes(), body.bytes()]);
}

function bigEndianOf(buf: Buffer): boolean {
  const mark = buf.readUInt8(0);
  if (mark !== LITTLE && mark !== BIG) throw new WireError('a D-Bus message that starts with neither "l" nor "B"');
  return mark === BIG;
}

/** The length of the message at the start of `buf`, once its fixed header is there; undefined before. */
export function messageLength(buf: Buffer): number | undefined {
  if (buf.length < 16) return undefined;
  const little = !bigEndianOf(buf);
  const bodyLength = little ? buf.readUInt32LE(4) : buf.readUInt32BE(4);
  const fieldsLength = little ? buf.readUInt32LE(12) : buf.readUInt32BE(12);
  const headerEnd = 16 + fieldsLength;
  const total = headerEnd + ((8 - (headerEnd % 8)) % 8) + bodyLength;
  if (total > MAX_MESSAGE_BYTES) throw new WireError(`a D-Bus message of ${total} bytes (crawl reads at most ${MAX_MESSAGE_BYTES})`);
  return total;
}

/** The message that is the whole of `buf`; throws WireError for anything the specification calls invalid. */
export function decodeMessage(buf: Buffer): Message {
  if (buf.length < 16) throw new WireError('the D-Bus message ends early');
  const bigEndian = bigEndianOf(buf);
  const r = new Reader(buf, { bigEndian, position: 1 });
  const type = r.read({ code: 'y' }) as number;
  if (type === 0) throw new WireError('a D-Bus message of type 0');
  const flags = r.read({ code: 'y' }) as number;
  const version = r.read({ code: 'y' }) as number;
  if (version !== 1) throw new WireError(`a D-Bus message of protocol version ${version}`);
  const bodyLength = r.read({ code: 'u' }) as number;
  const serial = r.read({ code: 'u' }) as number;
  if (serial === 0) throw new WireError('a D-Bus message with serial 0');
  const fields = r.read(HEADER_FIELDS) as [number, Variant][];
  r.align(8);
  const m: Message = { type, flags, serial, signature: '', body: [] };
  const seen = new Set<number>();
  for (const [code, [signature, value]] of fields) {
    if (code === 0) throw new WireError('a D-Bus message with header field 0');
    if (seen.has(code)) throw new WireError(`a D-Bus message with header field ${code} twice`);
    seen.add(code);
    const expected = FIELD_TYPE[code];
    // Fields of codes the specification may add later are skipped, as it asks.
    if (expected === undefined) continue;
    if (signature !== expected) throw new WireError(`a D-Bus header field ${code} of type ${shown(signature)}`);
    if (code === FIELD.path) m.path = value as string;
    else if (code === FIELD.interface) m.interface = value as string;
    else if (code === FIELD.member) m.member = value as string;
    else if (code === FIELD.errorName) m.errorName = value as string;
    else if (code === FIELD.replySerial) m.replySerial = value as number;
    else if (code === FIELD.destination) m.destination = value as string;
    else if (code === FIELD.sender) m.sender = value as string;
    else if (code === FIELD.signature) m.signature = value as string;
  }
  for (const required of REQUIRED[type] ?? []) {
    if (!seen.has(required)) throw new WireError(`a D-Bus message of type ${type} without header field ${required}`);
  }
  const bodyStart = r.position;
  if (bodyStart + bodyLength !== buf.length) throw new WireError('a D-Bus message whose body is not the length its header gives');
  const types = parseSignature(m.signature);
  m.body = types.map((t) => r.read(t));
  if (r.position !== buf.length) throw new WireError('a D-Bus message body longer than its signature');
  return m;
}
