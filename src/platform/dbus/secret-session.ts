// The Secret Service's encrypted transfer session, `dh-ietf1024-sha256-aes128-cbc-pkcs7` (the
// specification's "Transfer of Secrets"): a Diffie-Hellman exchange on the 1024-bit MODP group of
// RFC 2409 (its group 2), the shared secret through HKDF-SHA256 (no salt, no info) to a 16-byte
// AES key, and each secret sent as AES-128-CBC with PKCS#7 padding under an IV of its own. So a
// key crosses the bus as ciphertext, which is what libsecret (`secret-tool`) and GNOME Keyring
// negotiate too. Everything the service sends here is checked before it is used: a wrong length,
// a public value out of range or bad padding is a SecretSessionError whose message holds no byte
// of the secret.
import { createCipheriv, createDecipheriv, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

export const DH_AES = 'dh-ietf1024-sha256-aes128-cbc-pkcs7';

/** The group's prime is 1024 bits: public values and the shared secret are this many bytes, big-endian. */
const GROUP_BYTES = 128;
const AES_KEY_BYTES = 16;
const BLOCK = 16;

export class SecretSessionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretSessionError';
  }
}

/** A key pair on the session's group, made for one session (a test gives one of its choosing). */
export interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

// Key objects rather than node's DiffieHellman class: making one of those checks that the prime is
// safe, which costs a tenth of a second on every run that reads a key; these cost a millisecond.
// (Node takes 'dh' with a named group; @types/node lists no such overload.)
const generateDhPair = generateKeyPairSync as unknown as (type: 'dh', options: { group: 'modp2' }) => KeyPair;

export function newKeyPair(): KeyPair {
  return generateDhPair('dh', { group: 'modp2' });
}

/** Our public value as OpenSession's input: big-endian, zero-padded to the prime's length. */
export function publicValue(pair: KeyPair): Buffer {
  return leftPad(spkiOf(pair).y);
}

/**
 * The session's AES key from the service's public value (OpenSession's output). The shared
 * secret is padded to the prime's length before HKDF, as libsecret and GNOME Keyring pad it: an
 * unpadded one would give another key whenever it starts with a zero byte.
 */
export function sessionKey(pair: KeyPair, servicePublic: Buffer): Buffer {
  if (servicePublic.length === 0 || servicePublic.length > GROUP_BYTES) {
    throw new SecretSessionError(`the Secret Service sent a public key of ${servicePublic.length} bytes (expected at most ${GROUP_BYTES})`);
  }
  const ours = spkiOf(pair);
  // 0, 1 and p-1 (and anything from p up) would force a shared secret an eavesdropper can guess.
  const y = BigInt(`0x${servicePublic.toString('hex')}`);
  const p = BigInt(`0x${ours.prime.toString('hex')}`);
  if (y < 2n || y > p - 2n) throw new SecretSessionError('the Secret Service sent a public key outside its group');
  // The service's value as a key object: our own SubjectPublicKeyInfo, its value replaced.
  const spki = der(0x30, Buffer.concat([ours.algorithm, der(0x03, Buffer.concat([Buffer.from([0]), derInteger(servicePublic)]))]));
  const publicKey = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  return hkdf(leftPad(diffieHellman({ privateKey: pair.privateKey, publicKey })));
}

/** HKDF-SHA256 of `ikm`, no salt and no info, to the 16 bytes of an AES-128 key. */
export function hkdf(ikm: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), Buffer.alloc(0), AES_KEY_BYTES));
}

/** One secret for the service: a fresh random IV (the Secret struct's parameters) and the ciphertext. */
export function encrypt(key: Buffer, plaintext: Buffer, iv: Buffer = randomBytes(BLOCK)): { iv: Buffer; ciphertext: Buffer } {
  const cipher = createCipheriv('aes-128-cbc', key, iv);
  return { iv, ciphertext: Buffer.concat([cipher.update(plaintext), cipher.final()]) };
}

/** A secret from the service: its IV and ciphertext checked for length, its padding for form. */
export function decrypt(key: Buffer, iv: Buffer, ciphertext: Buffer): Buffer {
  if (iv.length !== BLOCK) throw new SecretSessionError(`the Secret Service sent a secret with an IV of ${iv.length} bytes (expected ${BLOCK})`);
  if (ciphertext.length === 0 || ciphertext.length % BLOCK !== 0) {
    throw new SecretSessionError(`the Secret Service sent an encrypted secret of ${ciphertext.length} bytes (expected a multiple of ${BLOCK})`);
  }
  const decipher = createDecipheriv('aes-128-cbc', key, iv);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    // OpenSSL's own words ("bad decrypt") say nothing more; nothing of the plaintext goes out.
    throw new SecretSessionError('the Secret Service sent a secret that does not decrypt with the session key (bad padding)');
  }
}

function leftPad(value: Buffer): Buffer {
  if (value.length >= GROUP_BYTES) return value;
  return Buffer.concat([Buffer.alloc(GROUP_BYTES - value.length), value]);
}

// The little DER this needs, read from and written like OpenSSL's own SubjectPublicKeyInfo for a
// DH key: SEQUENCE { SEQUENCE { OID, SEQUENCE { INTEGER p, INTEGER g } }, BIT STRING { INTEGER y } }.

interface Tlv {
  /** The whole element, header included. */
  raw: Buffer;
  body: Buffer;
}

function readTlv(buf: Buffer, at: number): Tlv {
  const first = buf[at + 1] as number;
  const lengthBytes = first < 0x80 ? 0 : first & 0x7f;
  let length = first < 0x80 ? first : 0;
  for (let i = 0; i < lengthBytes; i++) length = length * 256 + (buf[at + 2 + i] as number);
  const start = at + 2 + lengthBytes;
  return { raw: buf.subarray(at, start + length), body: buf.subarray(start, start + length) };
}

function children(body: Buffer): Tlv[] {
  const out: Tlv[] = [];
  for (let at = 0; at < body.length; ) {
    const element = readTlv(body, at);
    out.push(element);
    at += element.raw.length;
  }
  return out;
}

function spkiOf(pair: KeyPair): { algorithm: Buffer; prime: Buffer; y: Buffer } {
  const [algorithm, bitString] = children(readTlv(pair.publicKey.export({ type: 'spki', format: 'der' }), 0).body) as [Tlv, Tlv];
  const [, parameters] = children(algorithm.body) as [Tlv, Tlv];
  const [prime] = children(parameters.body) as [Tlv];
  return { algorithm: algorithm.raw, prime: stripZeros(prime.body), y: stripZeros(readTlv(bitString.body, 1).body) };
}

function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), content]);
}

function derInteger(unsigned: Buffer): Buffer {
  const value = stripZeros(unsigned);
  return der(0x02, (value[0] as number) & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);
}

function stripZeros(value: Buffer): Buffer {
  let i = 0;
  while (i < value.length - 1 && value[i] === 0) i++;
  return value.subarray(i);
}
