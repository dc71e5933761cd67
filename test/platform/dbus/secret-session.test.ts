// The encrypted transfer session (dh-ietf1024-sha256-aes128-cbc-pkcs7): published vectors for the
// HKDF and AES steps, and the Diffie-Hellman step against a reference computed here with BigInt
// and HMAC (no published vector exists), with keys chosen so that a public value and the shared
// secret start with zero bytes, where a session key that skipped libsecret's padding would differ.
// What a service sends is refused when it is out of shape, with a message that holds no secret.
import { describe, expect, it } from 'vitest';
import { createCipheriv, createDiffieHellman, createDiffieHellmanGroup, createHmac, createPrivateKey, createPublicKey, randomBytes, type DiffieHellman } from 'node:crypto';
import { decrypt, encrypt, hkdf, newKeyPair, publicValue, SecretSessionError, sessionKey } from '../../../src/platform/dbus/secret-session.js';

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s/g, ''), 'hex');

const MODP2 = createDiffieHellmanGroup('modp2');
const P = BigInt(`0x${MODP2.getPrime('hex')}`);

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
  }
  return result;
}

const bytesOf = (n: bigint): Buffer => Buffer.from(n.toString(16).padStart(Math.ceil(n.toString(16).length / 2) * 2, '0'), 'hex');
const padded = (n: bigint): Buffer => Buffer.from(n.toString(16).padStart(256, '0'), 'hex');

/** DER, as far as a PKCS#8 DH private key needs it. */
function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  return Buffer.concat([Buffer.from([tag, ...(n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff])]), content]);
}
const derInteger = (n: bigint): Buffer => der(0x02, bytesOf(n)[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), bytesOf(n)]) : bytesOf(n));
// AlgorithmIdentifier { dhKeyAgreement, DHParameter { p, g = 2 } }
const ALGORITHM = der(0x30, Buffer.concat([hex('06092a864886f70d010301'), der(0x30, Buffer.concat([derInteger(P), derInteger(2n)]))]));

/** A key pair on the group with the private key given. */
function pairWith(privateKey: bigint) {
  const key = createPrivateKey({ key: der(0x30, Buffer.concat([derInteger(0n), ALGORITHM, der(0x04, derInteger(privateKey))])), format: 'der', type: 'pkcs8' });
  return { privateKey: key, publicKey: createPublicKey(key) };
}

/** RFC 5869 with HMAC written out: extract with a zero salt, expand with no info, one block. */
function referenceHkdf(ikm: Buffer): Buffer {
  const prk = createHmac('sha256', Buffer.alloc(32)).update(ikm).digest();
  return createHmac('sha256', prk).update(Buffer.from([1])).digest().subarray(0, 16);
}

describe('HKDF-SHA256, no salt, no info (RFC 5869)', () => {
  it('gives the first 16 bytes of test case 3', () => {
    expect(hkdf(Buffer.alloc(22, 0x0b)).toString('hex')).toBe('8da4e775a563c18f715f802a063c5a31');
  });
});

describe('AES-128-CBC with PKCS#7 (NIST SP 800-38A, F.2.1)', () => {
  const key = hex('2b7e151628aed2a6abf7158809cf4f3c');
  const iv = hex('000102030405060708090a0b0c0d0e0f');
  const plaintext = hex('6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51');

  it('encrypts to the published blocks, then a block of padding, and decrypts back', () => {
    const { ciphertext } = encrypt(key, plaintext, iv);
    expect(ciphertext.subarray(0, 32).toString('hex')).toBe('7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2');
    expect(ciphertext.length).toBe(48);
    expect(decrypt(key, iv, ciphertext)).toEqual(plaintext);
  });

  it('takes a fresh random IV for each secret', () => {
    const a = encrypt(key, Buffer.from('crk_same'));
    const b = encrypt(key, Buffer.from('crk_same'));
    expect(a.iv.length).toBe(16);
    expect(a.iv).not.toEqual(b.iv);
    expect(a.ciphertext).not.toEqual(b.ciphertext);
  });

  it('refuses an IV or a ciphertext of the wrong length, and bad padding, naming no byte of the plaintext', () => {
    const secret = Buffer.from('crk_TopSecret\0\0\0');
    // A block whose last byte (0) is no PKCS#7 padding: written with padding off.
    const cipher = createCipheriv('aes-128-cbc', key, iv).setAutoPadding(false);
    const unpadded = Buffer.concat([cipher.update(secret), cipher.final()]);
    const cases: [Buffer, Buffer, RegExp][] = [
      [iv.subarray(0, 15), unpadded, /an IV of 15 bytes \(expected 16\)/],
      [Buffer.alloc(0), unpadded, /an IV of 0 bytes/],
      [iv, Buffer.alloc(0), /encrypted secret of 0 bytes/],
      [iv, unpadded.subarray(0, 15), /encrypted secret of 15 bytes/],
      [iv, unpadded, /does not decrypt with the session key \(bad padding\)/],
    ];
    for (const [badIv, ciphertext, message] of cases) {
      let error: unknown;
      try {
        decrypt(key, badIv, ciphertext);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SecretSessionError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('crk_');
      expect((error as Error).message).not.toContain('\n');
    }
  });
});

describe('the Diffie-Hellman exchange on MODP group 2', () => {
  // 2^1000 mod p starts with two zero bytes; with the client's private key below, so does the shared secret.
  const servicePrivate = 1000n;
  const clientPrivate = 2n ** 160n + 0x87n;
  const servicePublic = modPow(2n, servicePrivate, P);
  const shared = modPow(servicePublic, clientPrivate, P);

  it('pads our public value to the 128 bytes of the prime', () => {
    const pair = pairWith(900n);
    expect(bytesOf(modPow(2n, 900n, P)).length).toBeLessThan(128);
    const value = publicValue(pair);
    expect(value.length).toBe(128);
    expect(value).toEqual(padded(modPow(2n, 900n, P)));
  });

  it('derives the key libsecret and GNOME Keyring derive: the shared secret padded to 128 bytes, then HKDF', () => {
    expect(bytesOf(shared).length).toBeLessThan(128);
    // The service sends its public value without the leading zeros, as GNOME Keyring does.
    const key = sessionKey(pairWith(clientPrivate), bytesOf(servicePublic));
    expect(key).toEqual(referenceHkdf(padded(shared)));
    // Without the padding the key would be another: this case tells the two apart.
    expect(key).not.toEqual(referenceHkdf(bytesOf(shared)));
  });

  let reference: DiffieHellman | undefined;
  it('agrees with a service that computes its side with node:crypto, for fresh keys', () => {
    for (let i = 0; i < 4; i++) {
      const ours = newKeyPair();
      // A fresh private value on one group object: making one checks its prime, slowly.
      const service = reference ??= createDiffieHellman(MODP2.getPrime(), MODP2.getGenerator());
      service.setPrivateKey(randomBytes(32));
      service.generateKeys();
      // Its side by the book, and in another API of node:crypto than ours.
      const serviceKey = referenceHkdf(padded(BigInt(`0x${service.computeSecret(publicValue(ours)).toString('hex')}`)));
      expect(sessionKey(ours, service.getPublicKey())).toEqual(serviceKey);
      const { iv, ciphertext } = encrypt(serviceKey, Buffer.from('crk_round_trip'));
      expect(decrypt(sessionKey(ours, service.getPublicKey()), iv, ciphertext).toString()).toBe('crk_round_trip');
    }
  });

  it('refuses a public value that is empty, too long, or outside the group (0, 1, p-1, p)', () => {
    const pair = newKeyPair();
    const cases: [Buffer, RegExp][] = [
      [Buffer.alloc(0), /public key of 0 bytes/],
      [Buffer.alloc(129, 1), /public key of 129 bytes \(expected at most 128\)/],
      [Buffer.from([0]), /outside its group/],
      [Buffer.from([1]), /outside its group/],
      [padded(P - 1n), /outside its group/],
      [padded(P), /outside its group/],
    ];
    for (const [value, message] of cases) expect(() => sessionKey(pair, value)).toThrow(message);
  });
});
