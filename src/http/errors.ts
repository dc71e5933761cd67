import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';

/** A response with a non-2xx status: its exit code comes from the status (contract's table). */
export class HttpStatusError extends CrawlError {
  readonly status: number;
  readonly serverMessage: string | undefined;
  /**
   * How long the service asked to wait (Retry-After), in ms, when it said: callers that retry on
   * their own (job watch) wait at least that long, as the HTTP layer's retries do.
   */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, status: number, serverMessage: string | undefined, hint?: string, retryAfterMs?: number) {
    super(message, exitCodeForStatus(status), { httpStatus: status, ...(hint === undefined ? {} : { hint }) });
    this.name = 'HttpStatusError';
    this.status = status;
    this.serverMessage = serverMessage;
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * A body past the size cap, refused unread. The request was answered, with `status`: for a POST or
 * DELETE that is 2xx, it happened, but what the service said about it is unknown.
 */
export class ResponseTooLargeError extends CrawlError {
  readonly status: number;

  constructor(message: string, status: number) {
    super(message, ExitCode.failure, { httpStatus: status });
    this.name = 'ResponseTooLargeError';
    this.status = status;
  }
}

/**
 * A request that only the base URL's origin may answer (the check of a key) was redirected to
 * another origin. The key is never sent there, so whatever it answers proves nothing.
 */
export class CrossOriginAnswerError extends CrawlError {
  constructor(message: string, status: number) {
    super(message, ExitCode.failure, { httpStatus: status });
    this.name = 'CrossOriginAnswerError';
  }
}

/** No usable response: refused, reset, DNS, TLS, timeout. `mayHaveReachedServer` matters for POST. */
export class NetworkError extends CrawlError {
  readonly mayHaveReachedServer: boolean;
  /** The request ran out of its --timeout (rather than being refused or reset). */
  readonly timedOut: boolean;
  /**
   * The TLS handshake or the server's certificate failed (`isTlsFailure`): the same request fails
   * the same way until the base URL, the server or the trusted authorities change, so a watch
   * that waits out network failures ends at once on it.
   */
  readonly tls: boolean;

  constructor(message: string, mayHaveReachedServer: boolean, hint?: string, timedOut = false, tls = false) {
    super(message, ExitCode.network, hint === undefined ? {} : { hint });
    this.name = 'NetworkError';
    this.mayHaveReachedServer = mayHaveReachedServer;
    this.timedOut = timedOut;
    this.tls = tls;
  }
}

/**
 * A request that changes something was sent and may have been carried out, but what the service
 * said is unknown: no answer came, or a 2xx came whose body was too large to read.
 */
export function answeredUnread(error: unknown): error is CrawlError {
  return (error instanceof NetworkError && error.mayHaveReachedServer) || (error instanceof ResponseTooLargeError && error.status < 300);
}

export function exitCodeForStatus(status: number): number {
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 404) return ExitCode.notFound;
  if (status === 429) return ExitCode.rateLimited;
  return ExitCode.failure;
}

/** A 401's hint while the key comes from CRAWL_API_KEY: no stored key is used, whatever `auth login` stores. */
export const ENV_KEY_UNAUTHORIZED_HINT =
  'the key in use is the one in CRAWL_API_KEY (it wins over any stored key), and the service refused it: check its value (`crawl auth status` shows the key in use), or unset CRAWL_API_KEY to use the profile\'s key';

export function hintForStatus(status: number, unauthorizedHint?: string): string | undefined {
  if (status === 401 && unauthorizedHint !== undefined) return unauthorizedHint;
  if (status === 401) return 'the key is missing, invalid or revoked: check it with `crawl auth status`, or store a new one with `crawl auth login`';
  if (status === 403) return 'the key is not allowed to do this: check it with `crawl auth status`';
  return undefined;
}

const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** undici's (llhttp's) words for an answer that is not HTTP/1.1. */
const NOT_HTTP = /does not match the HTTP\/1\.1 protocol(?: \(([^)]*)\))?/;

/** undici's words when HTTPS_PROXY / HTTP_PROXY answers CONNECT with anything but 200. */
const TUNNEL_REFUSED = /Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/;

/**
 * Describes a low-level failure in words, whether the request may have reached the server, and
 * what to do when that is known.
 */
export function describeNetworkFailure(error: unknown): { reason: string; sent: boolean; code: string | undefined; hint?: string } {
  const tunnel = findMessage(error, TUNNEL_REFUSED);
  if (tunnel) {
    // The proxy turned the tunnel down: nothing reached the service.
    const status = Number(tunnel[1]);
    return {
      reason: `the proxy refused to connect to the service (HTTP ${status}${status === 407 ? ': proxy authentication required' : ''})`,
      sent: false,
      code: errorCode(error),
      hint: status === 407
        ? 'give the proxy\'s credentials in its URL (HTTPS_PROXY=http://user:password@proxy:port), or bypass it with NO_PROXY'
        : 'check HTTPS_PROXY / HTTP_PROXY, or bypass the proxy for this host with NO_PROXY',
    };
  }
  const notHttp = findMessage(error, NOT_HTTP);
  if (notHttp) {
    // Something answered, but not in HTTP: another kind of server at that port, or a broken one.
    const detail = notHttp[1] && !/RTSP/.test(notHttp[1]) ? ` (${notHttp[1].toLowerCase()})` : '';
    return {
      reason: `the answer is not valid HTTP${detail}`,
      sent: true,
      code: errorCode(error),
      hint: 'check the base URL (scheme and port): something other than the crawl service may be answering there',
    };
  }
  const code = errorCode(error);
  const sent = code === undefined || !(NOT_SENT_CODES.has(code) || isTlsCode(code));
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER') {
    // The classic sign of https:// sent to a port that speaks plain HTTP.
    return {
      reason: `TLS error (${code})`,
      sent,
      code,
      hint: 'the server does not seem to speak TLS on that port: check the base URL (https:// or http://, and the port)',
    };
  }
  const untrusted = code === undefined ? undefined : UNTRUSTED[code];
  if (untrusted !== undefined) return { reason: `TLS error (${code}): ${untrusted}`, sent, code, hint: UNTRUSTED_HINT };
  if (code === 'CERT_HAS_EXPIRED') return { reason: `TLS error (${code}): the server's certificate has expired`, sent, code };
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return { reason: `TLS error (${code}): the server's certificate is for another host name`, sent, code, hint: 'check the base URL\'s host: it must be a name the certificate names' };
  }
  let reason: string;
  switch (code) {
    case 'ECONNREFUSED':
      reason = 'connection refused';
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      reason = 'host not found (DNS)';
      break;
    case 'ECONNRESET':
    case 'EPIPE':
      reason = 'connection reset by the server';
      break;
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      reason = 'the server closed the connection';
      break;
    case 'UND_ERR_CONNECT_TIMEOUT':
      reason = 'timed out while connecting';
      break;
    case 'UND_ERR_HEADERS_OVERFLOW':
      reason = 'the server sent response headers too large to read';
      break;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      reason = 'host unreachable';
      break;
    default:
      reason = code !== undefined && isTlsCode(code) ? `TLS error (${code})` : code ?? innermostMessage(error) ?? 'network error';
  }
  return { reason, sent, code };
}

/** OpenSSL's words for a certificate no authority crawl trusts vouches for, in ours. */
const UNTRUSTED: Readonly<Record<string, string>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed, and crawl does not trust it",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's certificate comes from a certificate authority crawl does not trust (a self-signed root)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate comes from a certificate authority crawl does not know",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the server's certificate comes from a certificate authority crawl does not know",
  UNABLE_TO_GET_ISSUER_CERT: "the server's certificate comes from a certificate authority crawl does not know",
  CERT_UNTRUSTED: "the server's certificate comes from a certificate authority crawl does not trust",
};

/** A company proxy that inspects TLS, or a test service with a certificate of its own: the fix. */
const UNTRUSTED_HINT =
  "if you trust it (a company proxy, a service with an authority of its own), give crawl the authority's certificate in a PEM file: NODE_EXTRA_CA_CERTS=<file> adds it; SSL_CERT_FILE=<file> or SSL_CERT_DIR=<folder> trusts those in place of the bundled ones; on Node 22.15 or later the operating system's store is trusted too (see docs/tls.md)";

/** OpenSSL's codes for a certificate whose authority the trusted set does not know. */
export function isUnknownAuthority(code: string | undefined): boolean {
  return code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' || code === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' || code === 'UNABLE_TO_GET_ISSUER_CERT'
    || code === 'SELF_SIGNED_CERT_IN_CHAIN' || code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'CERT_UNTRUSTED';
}

function isTlsCode(code: string): boolean {
  return /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|ERR_INVALID_CERT|INVALID_CA$|INVALID_PURPOSE$|PATH_LENGTH_EXCEEDED$|KEYUSAGE_NO_CERTSIGN$)/.test(code);
}

/**
 * TLS failures that come back on every try: the certificate does not verify, or the two ends
 * speak no common TLS (no TLS on that port, no shared version or cipher). Named one by one: other
 * TLS errors (a record garbled on the way, a connection cut mid-handshake, a handshake that ran out
 * of time) may pass, and are tried again like any network failure.
 */
const LASTING_TLS = new RegExp(
  '^(?:' +
    [
      // The certificate does not verify (OpenSSL's verification codes, and Node's name check).
      'CERT_\\w+',
      'UNABLE_TO_\\w+',
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'SELF_SIGNED_CERT_IN_CHAIN',
      'INVALID_CA',
      'INVALID_PURPOSE',
      'PATH_LENGTH_EXCEEDED',
      'KEYUSAGE_NO_CERTSIGN',
      'ERR_TLS_CERT_ALTNAME_INVALID',
      'ERR_TLS_CERT_ALTNAME_FORMAT',
      // The two ends have no TLS in common: no TLS on the port, no version, cipher or key size
      // both take, a renegotiation one refuses, a name or a certificate the server asks for.
      'ERR_SSL_(?:WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|UNSUPPORTED_PROTOCOL|NO_PROTOCOLS_AVAILABLE|TLSV1_ALERT_PROTOCOL_VERSION|SSLV3_ALERT_HANDSHAKE_FAILURE|UNSAFE_LEGACY_RENEGOTIATION_DISABLED|DH_KEY_TOO_SMALL|EE_KEY_TOO_SMALL|CA_MD_TOO_WEAK|TLSV1_UNRECOGNIZED_NAME|TLSV13_ALERT_CERTIFICATE_REQUIRED|SSLV3_ALERT_BAD_CERTIFICATE|TLSV1_ALERT_UNKNOWN_CA|TLSV1_ALERT_ACCESS_DENIED)',
    ].join('|') +
    ')$',
);

/**
 * A TLS failure that heals only when something is changed (no TLS on that port, a certificate
 * self-signed, expired, for another host, from an unknown authority): LASTING_TLS.
 */
export function isTlsFailure(code: string | undefined): boolean {
  return code !== undefined && LASTING_TLS.test(code);
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_REQ_RETRY') {
      // undici wraps the socket's own error; prefer the innermost system code when there is one.
      const inner = (current as { cause?: unknown }).cause;
      const innerCode = inner && typeof inner === 'object' ? (inner as { code?: unknown }).code : undefined;
      return typeof innerCode === 'string' ? innerCode : code;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function findMessage(error: unknown, pattern: RegExp): RegExpExecArray | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const found = pattern.exec(current.message);
    if (found) return found;
    current = current.cause;
  }
  return undefined;
}

/** An unexpected failure still says what happened: the deepest cause's own words, on one line. */
function innermostMessage(error: unknown): string | undefined {
  let current: unknown = error;
  let message: string | undefined;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current.message) message = current.message.split('\n')[0];
    current = current.cause;
  }
  return message;
}
