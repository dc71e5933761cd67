// Which low-level failures are TLS failures (src/http/errors.ts, isTlsFailure): those do not heal by
// trying again, so a watch ends on them (src/api/watch.ts) where it waits out the others.
import { describe, expect, it } from 'vitest';
import { describeNetworkFailure, isTlsFailure } from '../../src/http/errors.js';

/** What undici throws: its own error around the socket's, which carries the code. */
const failure = (code: string): Error => Object.assign(new Error('fetch failed'), { code: 'UND_ERR_SOCKET', cause: Object.assign(new Error(code), { code }) });

describe('TLS failures: the handshake or the certificate', () => {
  it.each([
    'ERR_SSL_WRONG_VERSION_NUMBER',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'CERT_HAS_EXPIRED',
    'ERR_TLS_CERT_ALTNAME_INVALID',
    'CERT_NOT_YET_VALID',
    'ERR_SSL_PACKET_LENGTH_TOO_LONG',
    'ERR_SSL_UNSAFE_LEGACY_RENEGOTIATION_DISABLED',
    'ERR_SSL_DH_KEY_TOO_SMALL',
    'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
    'ERR_TLS_CERT_ALTNAME_FORMAT',
    'INVALID_CA',
  ])('%s is one, with the words the one-shot read gives', (code) => {
    expect(isTlsFailure(describeNetworkFailure(failure(code)).code)).toBe(true);
    expect(describeNetworkFailure(failure(code)).reason).toMatch(new RegExp(`^TLS error \\(${code}\\)`));
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_TLS_HANDSHAKE_TIMEOUT', 'EHOSTUNREACH'])(
    '%s is not: a service restarting, a network blip or a timeout may pass',
    (code) => {
      expect(isTlsFailure(describeNetworkFailure(failure(code)).code)).toBe(false);
    },
  );

  it.each(['ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC', 'ERR_SSL_UNEXPECTED_EOF_WHILE_READING', 'ERR_SSL_TLSV1_ALERT_INTERNAL_ERROR'])(
    '%s is a TLS error that may pass (a record garbled on the way, a cut, the other end\'s own fault): not one',
    (code) => {
      expect(describeNetworkFailure(failure(code)).reason).toMatch(new RegExp(`^TLS error \\(${code}\\)`));
      expect(isTlsFailure(describeNetworkFailure(failure(code)).code)).toBe(false);
    },
  );

  it('no code at all is not', () => {
    expect(isTlsFailure(undefined)).toBe(false);
  });
});
