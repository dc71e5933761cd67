// D-Bus server addresses, as the specification's "Server Addresses" writes them: entries separated
// by `;`, each `transport:key=value,key=value`, every value escaped byte by byte (`%` and two hex
// digits; only [-0-9A-Za-z_/.\*] may stand for themselves). The grammar is libdbus's: an empty
// address, an empty entry between two `;`, an entry without `:`, a pair without a key or a value,
// a bad escape or a byte that should have been escaped make the whole address unreadable (a
// trailing `;` or `,` is allowed, as libdbus allows it).

export class AddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AddressError';
  }
}

export interface AddressEntry {
  /** The transport as written: `unix`, `tcp`, `autolaunch`, ... */
  transport: string;
  /** Each key's value, unescaped: bytes, since the escapes are bytes (a path is UTF-8 only where it is used). */
  params: ReadonlyMap<string, Buffer>;
}

/** The bytes a value may hold as themselves: [-0-9A-Za-z_/.\*]. */
function optionallyEscaped(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || // 0-9
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x61 && code <= 0x7a) || // a-z
    code === 0x2d || // -
    code === 0x5f || // _
    code === 0x2f || // /
    code === 0x2e || // .
    code === 0x5c || // \
    code === 0x2a // *
  );
}

function hexDigit(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x41 + 10;
  if (code >= 0x61 && code <= 0x66) return code - 0x61 + 10;
  return -1;
}

/** A character of the address, for an error message: itself when printable ASCII, else its code. */
function shown(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  return code > 0x20 && code < 0x7f ? `"${char}"` : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** An escaped value's bytes. */
export function unescapeAddressValue(value: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (optionallyEscaped(code)) {
      bytes.push(code);
    } else if (code === 0x25) {
      const high = hexDigit(value.charCodeAt(i + 1));
      const low = hexDigit(value.charCodeAt(i + 2));
      if (high < 0 || low < 0) throw new AddressError('a "%" is not followed by two hex digits');
      bytes.push(high * 16 + low);
      i += 2;
    } else {
      throw new AddressError(`the character ${shown(String.fromCodePoint(value.codePointAt(i) ?? code))} should have been %-escaped`);
    }
  }
  return Buffer.from(bytes);
}

/** `value` (text, as UTF-8, or bytes) escaped for a D-Bus address: every byte outside [-0-9A-Za-z_/.\*] as %xx. */
export function escapeAddressValue(value: string | Uint8Array): string {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  let escaped = '';
  for (const byte of bytes) escaped += optionallyEscaped(byte) ? String.fromCharCode(byte) : `%${byte.toString(16).padStart(2, '0')}`;
  return escaped;
}

/** The entries of an address, in the order a client tries them; throws AddressError when any part is malformed. */
export function parseAddress(address: string): AddressEntry[] {
  if (address === '') throw new AddressError('the address is empty');
  const texts = address.split(';');
  // "a;" is one entry, as libdbus reads it; an empty entry anywhere else is a mistake.
  if (texts.length > 1 && texts[texts.length - 1] === '') texts.pop();
  return texts.map((text, index) => {
    const where = texts.length > 1 ? `entry ${index + 1}` : 'the address';
    if (text === '') throw new AddressError(`${where} is empty`);
    const colon = text.indexOf(':');
    if (colon < 0) throw new AddressError(`${where} has no transport (no ":")`);
    if (colon === 0) throw new AddressError(`${where} has an empty transport name`);
    const transport = text.slice(0, colon);
    const params = new Map<string, Buffer>();
    const pairs = text.slice(colon + 1).split(',');
    if (pairs.length > 1 && pairs[pairs.length - 1] === '') pairs.pop();
    if (pairs.length === 1 && pairs[0] === '') return { transport, params };
    for (const pair of pairs) {
      const eq = pair.indexOf('=');
      if (eq <= 0 || eq === pair.length - 1) throw new AddressError(`${where} (${transport}:) has a parameter that is not key=value`);
      const key = pair.slice(0, eq);
      if (params.has(key)) throw new AddressError(`${where} (${transport}:) gives "${key}" twice`);
      try {
        params.set(key, unescapeAddressValue(pair.slice(eq + 1)));
      } catch (error) {
        throw new AddressError(`${where} (${transport}:), its "${key}": ${(error as Error).message}`);
      }
    }
    return { transport, params };
  });
}

/** Where a client connects for an entry: a Unix socket (an abstract one's name after a NUL), or why crawl cannot. */
export type Endpoint = { kind: 'socket'; path: string; shown: string } | { kind: 'unusable'; reason: string };

const UNIX_KEYS = ['path', 'abstract', 'runtime', 'dir', 'tmpdir'] as const;

/**
 * The socket an entry names, for a client that speaks only Unix sockets (the one transport the
 * session bus of a Linux or BSD desktop offers). `abstractSockets`: whether this Node can reach
 * a socket in Linux's abstract namespace (see platform/host.ts).
 */
export function endpointOf(entry: AddressEntry, options: { abstractSockets: boolean }): Endpoint {
  if (entry.transport !== 'unix') return { kind: 'unusable', reason: `the ${entry.transport}: transport, which crawl does not speak` };
  const given = UNIX_KEYS.filter((key) => entry.params.has(key));
  if (given.length !== 1) return { kind: 'unusable', reason: 'a unix: entry without exactly one of path=, abstract=, runtime=, dir= and tmpdir=' };
  const [key] = given as [(typeof UNIX_KEYS)[number]];
  if (key !== 'path' && key !== 'abstract') return { kind: 'unusable', reason: `unix:${key}=, where a bus listens rather than an address to connect to` };
  const name = utf8(entry.params.get(key) as Buffer);
  if (name === undefined) return { kind: 'unusable', reason: `a unix:${key}= name that is not UTF-8 (Node cannot pass it to the system)` };
  if (name.includes('\0')) return { kind: 'unusable', reason: `a unix:${key}= name holding a NUL byte` };
  if (key === 'path') return { kind: 'socket', path: name, shown: name };
  if (!options.abstractSockets) return { kind: 'unusable', reason: 'unix:abstract=, which this Node cannot reach (Node 22 and later can)' };
  return { kind: 'socket', path: `\0${name}`, shown: `@${name}` };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function utf8(bytes: Buffer): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}
