// The D-Bus wire format (little-endian), as far as crawl speaks it: the Secret Service's calls and
// the bus's own. Values map to JavaScript as: y n q i u h d -> number, x t -> bigint, b -> boolean,
// s o g -> string, a<T> -> array (a dict a{KV} -> array of [key, value] pairs), (...) -> array of
// members, v -> [signature, value]. Everything read is checked against the buffer's length, since
// what a bus sends is not trusted.

export type DBusValue = number | bigint | boolean | string | DBusValue[] | Buffer | Variant;
export type Variant = [signature: string, value: DBusValue];

export class WireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireError';
  }
}

const ALIGN: Record<string, number> = { y: 1, g: 1, v: 1, n: 2, q: 2, b: 4, i: 4, u: 4, h: 4, s: 4, o: 4, a: 4, x: 8, t: 8, d: 8, '(': 8, '{': 8 };

function alignOf(code: string): number {
  const a = ALIGN[code];
  if (a === undefined) throw new WireError(`unsupported D-Bus type "${code}"`);
  return a;
}

/** The first complete type of `signature` from `start`, and where the next one begins. */
export function nextType(signature: string, start = 0): { type: string; end: number } {
  const c = signature[start];
  if (c === undefined) throw new WireError(`incomplete D-Bus signature "${signature}"`);
  if (c === 'a') {
    const inner = nextType(signature, start + 1);
    return { type: signature.slice(start, inner.end), end: inner.end };
  }
  if (c === '(' || c === '{') {
    const close = c === '(' ? ')' : '}';
    let i = start + 1;
    while (signature[i] !== close) {
      if (i >= signature.length) throw new WireError(`unbalanced D-Bus signature "${signature}"`);
      i = nextType(signature, i).end;
    }
    return { type: signature.slice(start, i + 1), end: i + 1 };
  }
  alignOf(c);
  return { type: c, end: start + 1 };
}

/** The complete types of a signature, in order ("sa{ss}" -> ["s", "a{ss}"]). */
export function splitSignature(signature: string): string[] {
  const types: string[] = [];
  for (let i = 0; i < signature.length; ) {
    const { type, end } = nextType(signature, i);
    types.push(type);
    i = end;
  }
  return types;
}

export class Writer {
  #buf = Buffer.alloc(256);
  #len = 0;

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

  #u8(v: number): void {
    this.#room(1);
    this.#buf.writeUInt8(v, this.#len);
    this.#len += 1;
  }

  #u32(v: number): void {
    this.align(4);
    this.#room(4);
    this.#buf.writeUInt32LE(v, this.#len);
    this.#len += 4;
  }

  #raw(bytes: Buffer): void {
    this.#room(bytes.length);
    bytes.copy(this.#buf, this.#len);
    this.#len += bytes.length;
  }

  /** Overwrites the u32 at `at` (an array's length, known once its elements are written). */
  patchU32(at: number, v: number): void {
    this.#buf.writeUInt32LE(v, at);
  }

  write(type: string, value: DBusValue): void {
    const c = type[0];
    switch (c) {
      case 'y':
        return this.#u8(value as number);
      case 'b':
        return this.#u32(value ? 1 : 0);
      case 'n':
      case 'q':
        this.align(2);
        this.#room(2);
        if (c === 'n') this.#buf.writeInt16LE(value as number, this.#len);
        else this.#buf.writeUInt16LE(value as number, this.#len);
        this.#len += 2;
        return;
      case 'i':
        this.align(4);
        this.#room(4);
        this.#buf.writeInt32LE(value as number, this.#len);
        this.#len += 4;
        return;
      case 'u':
      case 'h':
        return this.#u32(value as number);
      case 'x':
      case 't':
        this.align(8);
        this.#room(8);
        if (c === 'x') this.#buf.writeBigInt64LE(BigInt(value as bigint), this.#len);
        else this.#buf.writeBigUInt64LE(BigInt(value as bigint), this.#len);
        this.#len += 8;
        return;
      case 'd':
        this.align(8);
        this.#room(8);
        this.#buf.writeDoubleLE(value as number, this.#len);
        this.#len += 8;
        return;
      case 's':
      case 'o': {
        const bytes = Buffer.from(value as string, 'utf8');
        this.#u32(bytes.length);
        this.#raw(bytes);
        return this.#u8(0);
      }
      case 'g': {
        const bytes = Buffer.from(value as string, 'ascii');
        this.#u8(bytes.length);
        this.#raw(bytes);
        return this.#u8(0);
      }
      case 'v': {
        const [signature, inner] = value as Variant;
        this.write('g', signature);
        return this.write(signature, inner);
      }
      case 'a': {
        const element = type.slice(1);
        this.#u32(0);
        const lengthAt = this.#len - 4;
        this.align(alignOf(element[0] as string));
        const start = this.#len;
        if (element === 'y' && Buffer.isBuffer(value)) this.#raw(value);
        else for (const item of value as DBusValue[]) this.write(element, item);
        this.patchU32(lengthAt, this.#len - start);
        return;
      }
      case '(':
      case '{': {
        this.align(8);
        const members = splitSignature(type.slice(1, -1));
        const values = value as DBusValue[];
        members.forEach((member, i) => this.write(member, values[i] as DBusValue));
        return;
      }
      default:
        throw new WireError(`unsupported D-Bus type "${type}"`);
    }
  }
}

export class Reader {
  readonly #buf: Buffer;
  #pos: number;

  constructor(buf: Buffer, pos = 0) {
    this.#buf = buf;
    this.#pos = pos;
  }

  get position(): number {
    return this.#pos;
  }

  #need(n: number): void {
    if (this.#pos + n > this.#buf.length) throw new WireError('D-Bus message ends early');
  }

  align(n: number): void {
    this.#pos += (n - (this.#pos % n)) % n;
    if (this.#pos > this.#buf.length) throw new WireError('D-Bus message ends early');
  }

  #u8(): number {
    this.#need(1);
    return this.#buf.readUInt8(this.#pos++);
  }

  #u32(): number {
    this.align(4);
    this.#need(4);
    const v = this.#buf.readUInt32LE(this.#pos);
    this.#pos += 4;
    return v;
  }

  #string(length: number, encoding: BufferEncoding): string {
    this.#need(length + 1);
    const text = this.#buf.toString(encoding, this.#pos, this.#pos + length);
    this.#pos += length + 1;
    return text;
  }

  read(type: string): DBusValue {
    const c = type[0];
    switch (c) {
      case 'y':
        return this.#u8();
      case 'b':
        return this.#u32() !== 0;
      case 'n':
      case 'q': {
        this.align(2);
        this.#need(2);
        const v = c === 'n' ? this.#buf.readInt16LE(this.#pos) : this.#buf.readUInt16LE(this.#pos);
        this.#pos += 2;
        return v;
      }
      case 'i': {
        this.align(4);
        this.#need(4);
        const v = this.#buf.readInt32LE(this.#pos);
        this.#pos += 4;
        return v;
      }
      case 'u':
      case 'h':
        return this.#u32();
      case 'x':
      case 't': {
        this.align(8);
        this.#need(8);
        const v = c === 'x' ? this.#buf.readBigInt64LE(this.#pos) : this.#buf.readBigUInt64LE(this.#pos);
        this.#pos += 8;
        return v;
      }
      case 'd': {
        this.align(8);
        this.#need(8);
        const v = this.#buf.readDoubleLE(this.#pos);
        this.#pos += 8;
        return v;
      }
      case 's':
      case 'o':
        return this.#string(this.#u32(), 'utf8');
      case 'g':
        return this.#string(this.#u8(), 'ascii');
      case 'v': {
        const signature = this.read('g') as string;
        const types = splitSignature(signature);
        if (types.length !== 1) throw new WireError(`a D-Bus variant holds "${signature}"`);
        return [signature, this.read(signature)];
      }
      case 'a': {
        const element = type.slice(1);
        const length = this.#u32();
        this.align(alignOf(element[0] as string));
        const end = this.#pos + length;
        if (end > this.#buf.length) throw new WireError('D-Bus array ends past its message');
        if (element === 'y') {
          const bytes = Buffer.from(this.#buf.subarray(this.#pos, end));
          this.#pos = end;
          return bytes;
        }
        const items: DBusValue[] = [];
        while (this.#pos < end) items.push(this.read(element));
        if (this.#pos !== end) throw new WireError('D-Bus array length does not match its elements');
        return items;
      }
      case '(':
      case '{': {
        this.align(8);
        return splitSignature(type.slice(1, -1)).map((member) => this.read(member));
      }
      default:
        throw new WireError(`unsupported D-Bus type "${type}"`);
    }
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
const FIELD_TYPE: Record<number, string> = { 1: 'o', 2: 's', 3: 's', 4: 's', 5: 'u', 6: 's', 7: 's', 8: 'g' };

/** No message crawl takes part in comes near this; a larger length is a broken or hostile peer. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

export function encodeMessage(m: Message): Buffer {
  const body = new Writer();
  const types = splitSignature(m.signature);
  if (types.length !== m.body.length) throw new WireError(`signature "${m.signature}" does not match ${m.body.length} values`);
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
  const head = new Writer();
  head.write('y', 'l'.charCodeAt(0));
  head.write('y', m.type);
  head.write('y', m.flags);
  head.write('y', 1);
  head.write('u', body.length);
  head.write('u', m.serial);
  head.write('a(yv)', fields);
  head.align(8);
  return Buffer.concat([head.bytes(), body.bytes()]);
}

/** The length of the message at the start of `buf`, once its fixed header is there; undefined before. */
export function messageLength(buf: Buffer): number | undefined {
  if (buf.length < 16) return undefined;
  if (buf[0] !== 'l'.charCodeAt(0)) throw new WireError('the bus sent a big-endian message');
  const bodyLength = buf.readUInt32LE(4);
  const fieldsLength = buf.readUInt32LE(12);
  const headerEnd = 16 + fieldsLength;
  const total = headerEnd + ((8 - (headerEnd % 8)) % 8) + bodyLength;
  if (total > MAX_MESSAGE_BYTES) throw new WireError(`the bus sent a message of ${total} bytes`);
  return total;
}

export function decodeMessage(buf: Buffer): Message {
  const r = new Reader(buf);
  r.read('y');
  const type = r.read('y') as number;
  const flags = r.read('y') as number;
  r.read('y');
  r.read('u');
  const serial = r.read('u') as number;
  const fields = r.read('a(yv)') as [number, Variant][];
  r.align(8);
  const m: Message = { type, flags, serial, signature: '', body: [] };
  for (const [code, [, value]] of fields) {
    if (code === FIELD.path) m.path = value as string;
    else if (code === FIELD.interface) m.interface = value as string;
    else if (code === FIELD.member) m.member = value as string;
    else if (code === FIELD.errorName) m.errorName = value as string;
    else if (code === FIELD.replySerial) m.replySerial = value as number;
    else if (code === FIELD.destination) m.destination = value as string;
    else if (code === FIELD.sender) m.sender = value as string;
    else if (code === FIELD.signature) m.signature = value as string;
  }
  m.body = splitSignature(m.signature).map((t) => r.read(t));
  return m;
}
