// A Secret Service played by the test on a real private bus (test/support/keyring-session.ts with
// no keyring): it owns org.freedesktop.secrets and answers each method with what the test says,
// so a test can be the service a daemon never is (one that refuses the encrypted session, sends
// hostile secrets, or leaves the bus while a prompt waits). The encrypted session is node:crypto's
// own Diffie-Hellman and AES here, written apart from src/platform/dbus/secret-session.ts.
import { createCipheriv, createDecipheriv, createDiffieHellman, createDiffieHellmanGroup, hkdfSync, randomBytes, type DiffieHellman } from 'node:crypto';
import { DBusConnection } from '../../src/platform/dbus/connection.js';
import type { DBusValue, Message } from '../../src/platform/dbus/wire.js';

const DRIVER = { destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus' } as const;
const uid = (): number => process.getuid?.() ?? 0;

/** What a method does: a reply (signature and body), an error, or nothing (it is never answered). */
export type Answer = { signature?: string; body?: DBusValue[] } | { error: string; text?: string } | undefined;

export interface Peer {
  conn: DBusConnection;
  /** Every call it got, in order. */
  calls: Message[];
  /** Gives up the service's name (the bus says NameOwnerChanged), the connection kept. */
  releaseName(): Promise<void>;
  close(): void;
}

/** A connection on `address` that owns the Secret Service's name and answers calls with `answer`. */
export async function secretServicePeer(address: string, answer: (m: Message, peer: Peer) => Answer): Promise<Peer> {
  const conn = await DBusConnection.open(address, uid(), AbortSignal.timeout(10_000));
  const peer: Peer = {
    conn,
    calls: [],
    async releaseName() {
      await conn.call({ ...DRIVER, member: 'ReleaseName', signature: 's', body: ['org.freedesktop.secrets'] }, AbortSignal.timeout(10_000));
    },
    close: () => conn.close(),
  };
  conn.onCall((m) => {
    peer.calls.push(m);
    const a = answer(m, peer);
    if (a === undefined) return;
    if ('error' in a) conn.replyError(m, a.error, a.text ?? a.error);
    else conn.reply(m, a.signature ?? '', a.body ?? []);
  });
  await conn.call({ ...DRIVER, member: 'RequestName', signature: 'su', body: ['org.freedesktop.secrets', 4] }, AbortSignal.timeout(10_000));
  return peer;
}

let group: DiffieHellman | undefined;
/**
 * The second Oakley group (modp2), made once a process: making a DiffieHellman object checks that
 * its prime is safe, a twentieth of a second each time; a session sets its own private value on it
 * (every use is synchronous, so sessions never see each other's).
 */
function modp2(): DiffieHellman {
  group ??= createDiffieHellman(createDiffieHellmanGroup('modp2').getPrime(), 2);
  return group;
}

/** The service's half of dh-ietf1024-sha256-aes128-cbc-pkcs7, by the specification. */
export class ServiceSession {
  /** A fresh private value for each session, on the one group object. */
  readonly #private = randomBytes(32);
  readonly #public: Buffer;
  key: Buffer | undefined;

  constructor() {
    const dh = modp2();
    dh.setPrivateKey(this.#private);
    this.#public = dh.generateKeys();
  }

  /** OpenSession's output for the client's public value (unpadded, as GNOME Keyring sends it). */
  open(clientPublic: Buffer): DBusValue {
    const dh = modp2();
    dh.setPrivateKey(this.#private);
    const shared = dh.computeSecret(clientPublic);
    this.key = Buffer.from(hkdfSync('sha256', Buffer.concat([Buffer.alloc(128 - shared.length), shared]), Buffer.alloc(0), Buffer.alloc(0), 16));
    return ['ay', this.#public];
  }

  encrypt(plaintext: Buffer, iv: Buffer): Buffer {
    const cipher = createCipheriv('aes-128-cbc', this.#key(), iv);
    return Buffer.concat([cipher.update(plaintext), cipher.final()]);
  }

  decrypt(iv: Buffer, ciphertext: Buffer): Buffer {
    const decipher = createDecipheriv('aes-128-cbc', this.#key(), iv);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  }

  /** AES with the padding left off: a final byte the test chooses, which may be no padding at all. */
  encryptRaw(blocks: Buffer, iv: Buffer): Buffer {
    const cipher = createCipheriv('aes-128-cbc', this.#key(), iv).setAutoPadding(false);
    return Buffer.concat([cipher.update(blocks), cipher.final()]);
  }

  #key(): Buffer {
    if (this.key === undefined) throw new Error('no session opened');
    return this.key;
  }
}
