import type { Dispatcher } from 'undici';
import type { SecureContext } from 'node:tls';
import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { formatSeconds } from '../text/format.js';
import { maskKey } from '../text/mask.js';
import { realClock, type Clock } from '../platform/clock.js';
import { allowConcurrentRequests, timeoutSignal } from '../platform/deadline.js';
import { Redactor } from '../text/redact.js';
import { looksLikeHtml, serverMessage } from './error-body.js';
import { CrossOriginAnswerError, HttpStatusError, NetworkError, ResponseTooLargeError, describeNetworkFailure, hintForStatus, isTlsFailure, isUnknownAuthority } from './errors.js';
import { MAX_ATTEMPTS, MAX_RETRY_AFTER_MS, RETRY_STATUSES, backoffDelay, parseRetryAfter } from './retry.js';
import type { UndiciParts } from './undici.js';
import { buildUrl, checkTransport, displayUrl, sameOrigin } from './url.js';

// The most crawl reads of one response; a larger body is refused, not buffered (docs/http.md: "The HTTP layer").
// Chosen by measuring the peak memory of a body made of empty objects (`[{},{},...]`), the worst
// case for its size: see docs/http.md for the numbers.
/** A body parsed into objects (a job, the key list, any other JSON): parsing costs many times its size. */
let undiciParts: Promise<UndiciParts> | undefined;
/** undici's parts, imported on the first request: a command that sends none never loads them. */
function loadUndici(): Promise<UndiciParts> {
  undiciParts ??= import('./undici.js').then((module) => module.undici);
  return undiciParts;
}

export const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;
/** One batch of pages: checked and copied out as text, never parsed, so it may be larger. */
export const MAX_BATCH_BYTES = 32 * 1024 * 1024;
/** An error body only ever gives a one-line message: past this it is not read, and the status stands alone. */
export const MAX_ERROR_BODY_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 5;
/** Bodies are decoded whole (never streamed), so one decoder serves them all. */
const UTF8 = new TextDecoder('utf-8');
/**
 * What a request still out when its client is closed ends with (made once: see close()). Its stack
 * is set to its first line: Node's streams read the stack of the error a socket is destroyed with,
 * and formatting the one taken here would find the line of each of its frames, scanning the whole
 * text of each bundle file they are in, at the end of every run.
 */
const CLIENT_CLOSED = new Error('the client was closed');
CLIENT_CLOSED.stack = `Error: ${CLIENT_CLOSED.message}`;
/**
 * A response's status line and headers (Node's default limit). crawl's own, so NODE_OPTIONS'
 * --max-http-header-size does not change it; past it the request fails as a network error.
 */
const MAX_HEADER_BYTES = 16 * 1024;

export type Method = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'HEAD' | 'OPTIONS';

/** Methods that change nothing: retried when they fail, followed through redirects, and given up at once on Ctrl-C. */
export function isSafeMethod(method: Method): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

export interface HttpClientOptions {
  baseUrl: URL;
  apiKey: string | undefined;
  timeoutMs: number;
  allowHttp: boolean;
  userAgent: string;
  /** --verbose: one line per event on stderr. The key never reaches it. */
  trace?: ((line: string) => void) | undefined;
  /** Aborted on Ctrl-C / SIGTERM; its reason is the InterruptedError to throw. */
  interrupt?: AbortSignal | undefined;
  /**
   * Called when a request that changes something (POST, DELETE) goes out, with the time by which
   * its answer is due (the deadline); the returned function is called once it has settled. The
   * process's forced exit after a signal waits for it (src/app/guard.ts, src/app/signal-exit.ts).
   */
  onMutation?: ((dueAt: number) => () => void) | undefined;
  /** The cap of a 2xx body when a request does not set its own (default MAX_DOCUMENT_BYTES). */
  maxBodyBytes?: number;
  /** The run's secrets, removed from every body; the client adds its own key to it. */
  redactor?: Redactor | undefined;
  /** What retries wait on (and Retry-After dates are read against); the real clock by default. */
  clock?: Clock | undefined;
  /** HTTP(S)_PROXY and NO_PROXY as the run's environment says (empty: none); else undici reads process.env. */
  proxy?: { httpProxy: string; httpsProxy: string; noProxy: string } | undefined;
  /**
   * The certificate authorities to trust (http/trust.ts): `context` first (Node's defaults when
   * undefined); `widen`, once, when a server's authority is unknown to it (the connection is tried
   * again: a failed handshake sent nothing). Or what reads them, called at the first request: a
   * client that sends nothing reads no certificate.
   */
  tls?: TlsTrust | (() => Promise<TlsTrust>) | undefined;
  /** A 401's hint when the default (check or store the key with `crawl auth ...`) cannot help. */
  unauthorizedHint?: string | undefined;
}

export interface TlsTrust {
  context: SecureContext | undefined;
  widen?: (() => SecureContext | undefined) | undefined;
}

export interface RequestSpec {
  method: Method;
  /** Path segments under the base URL; each is encoded as exactly one segment. */
  path?: readonly string[];
  /** Or a link given by the server: an absolute URL or a path, resolved against the base URL. */
  url?: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** A body sent as it is (`crawl api --input`), instead of `body` as JSON. */
  rawBody?: string | Buffer;
  /** More request headers (`crawl api -H`); a content-type here replaces the JSON one. */
  headers?: Readonly<Record<string, string>>;
  /** Every status is an answer (`crawl api`): a non-2xx response is returned after the retries, not thrown. */
  anyStatus?: boolean;
  /** GETs are retried unless this is false; other methods never are. */
  retry?: boolean;
  /**
   * Only the base URL's origin may answer: a redirect elsewhere fails (CrossOriginAnswerError)
   * instead of being followed without the key. For checks whose answer is about the key.
   */
  sameOriginOnly?: boolean;
  /** The cap of a 2xx body (default: the client's, MAX_DOCUMENT_BYTES); error bodies have their own. */
  maxBodyBytes?: number;
}

export interface HttpResponse {
  status: number;
  url: URL;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** An error (or redirect) body larger than MAX_ERROR_BODY_BYTES: not read, `text` is empty. */
  bodyOmitted?: boolean;
}

/**
 * The one HTTP layer every command uses, on undici. It encodes paths, attaches the key only for the
 * base URL's origin, refuses clear-text http to remote hosts, enforces a per-request deadline and a
 * body size cap, retries only what cannot repeat a side effect, and turns every failure into a
 * CrawlError carrying the contract's exit code.
 */
export class HttpClient {
  readonly baseUrl: URL;
  readonly #options: HttpClientOptions;
  readonly #redactor: Redactor;
  readonly #clock: Clock;
  #dispatcher: Dispatcher | undefined;
  #tls: Promise<TlsTrust | undefined> | undefined;
  #tlsContext: SecureContext | undefined;
  #widened = false;
  /** Aborted by close(): a request given up on (by --max-wait) ends there, and is not tried again. */
  readonly #closed = new AbortController();

  constructor(options: HttpClientOptions) {
    this.#options = options;
    this.baseUrl = options.baseUrl;
    checkTransport(options.baseUrl, options.allowHttp);
    this.#redactor = options.redactor ?? new Redactor();
    allowConcurrentRequests(this.#closed.signal);
    this.#clock = options.clock ?? realClock;
    if (typeof options.tls !== 'function') this.#tlsContext = options.tls?.context;
    if (options.apiKey !== undefined) this.#redactor.add(options.apiKey);
  }

  resolve(spec: Pick<RequestSpec, 'path' | 'url' | 'query'>): URL {
    if (spec.url !== undefined) {
      const url = parseLink(spec.url, this.baseUrl, 'the service sent a link');
      for (const [name, value] of Object.entries(spec.query ?? {})) {
        if (value !== undefined) url.searchParams.set(name, String(value));
      }
      return url;
    }
    return buildUrl(this.baseUrl, spec.path ?? [], spec.query);
  }

  /** Sends the request (with retries where safe); resolves only for 2xx, else throws a CrawlError. */
  async request(spec: RequestSpec): Promise<HttpResponse> {
    try {
      return await this.#request(spec);
    } catch (error) {
      throw this.#withoutSecrets(error);
    }
  }

  /**
   * The error with every key of this client taken out of its message. Messages name URLs, and a
   * URL can hold a key: a redirect's Location is the server's to choose (`/k/<the key it was
   * sent>`), a path the caller's. The CLI redacts what it prints; a library's caller logs the
   * error itself.
   */
  #withoutSecrets(error: unknown): unknown {
    return this.#redactor.redactError(error);
  }

  async #request(spec: RequestSpec): Promise<HttpResponse> {
    const url = this.resolve(spec);
    const retryable = isSafeMethod(spec.method) && spec.retry !== false;
    const label = `${spec.method} ${url.pathname}`;
    let timeouts = 0;
    for (let attempt = 1; ; attempt++) {
      let failure: CrawlError;
      let delay: number;
      // A client closed (its caller gave up, or the run ended) sends nothing more.
      if (this.#closed.signal.aborted) throw closedError(spec.method, url);
      try {
        const response = await this.#followRedirects(spec, url);
        if (response.status >= 200 && response.status < 300) return response;
        const statusFailure = statusError(response, label, this.#clock.now(), this.#options.unauthorizedHint);
        failure = statusFailure;
        const last = !retryable || !RETRY_STATUSES.has(response.status) || attempt >= MAX_ATTEMPTS || this.#closed.signal.aborted;
        if (last && spec.anyStatus) return response;
        if (last) throw failure;
        const retryAfter = statusFailure.retryAfterMs;
        if (retryAfter !== undefined && retryAfter > MAX_RETRY_AFTER_MS) {
          const { serverMessage, hint } = statusFailure;
          throw new HttpStatusError(
            `${failure.message} (the service asks to retry after ${Math.ceil(retryAfter / 1000)} s)`,
            response.status,
            serverMessage,
            hint,
            retryAfter,
          );
        }
        delay = retryAfter ?? backoffDelay(attempt);
      } catch (error) {
        if (error instanceof NetworkError && error.timedOut) timeouts++;
        // A TLS failure (no TLS on that port, a certificate not trusted, expired or for another
        // name) is the same on every attempt: said at once, not after the backoff.
        const again = error instanceof NetworkError && !error.tls && retryable;
        if (!again || attempt >= MAX_ATTEMPTS || this.#closed.signal.aborted) throw attempt > 1 ? countedTimeout(error, attempt, timeouts) : error;
        failure = error;
        delay = backoffDelay(attempt);
      }
      const reason = failure.httpStatus !== undefined ? `HTTP ${failure.httpStatus}` : failure.message;
      this.#trace(`retrying ${label} in ${delay} ms (attempt ${attempt + 1} of ${MAX_ATTEMPTS}) after ${reason}`);
      // Woken by close() too: the failure stands, and nothing is tried again.
      try {
        await this.#clock.sleep(delay, this.#options.interrupt ? AbortSignal.any([this.#options.interrupt, this.#closed.signal]) : this.#closed.signal);
      } catch (error) {
        if (this.#closed.signal.aborted && !this.#options.interrupt?.aborted) throw failure;
        throw error;
      }
    }
  }

  /** request() and JSON.parse of the body; a body that is not JSON is a malformed response (exit 1). */
  async requestJson(spec: RequestSpec): Promise<{ response: HttpResponse; body: unknown }> {
    const response = await this.request(spec);
    try {
      return { response, body: parseJsonBody(response, spec.method) };
    } catch (error) {
      throw this.#withoutSecrets(error);
    }
  }

  /** Waits on the client's clock, but wakes at once on Ctrl-C. */
  sleep(ms: number): Promise<void> {
    return this.#clock.sleep(ms, this.#options.interrupt);
  }

  /** Ends every request still out (one a caller stopped waiting for) and the connections. */
  async close(): Promise<void> {
    this.#closed.abort(CLIENT_CLOSED);
    // With an error of ours: undici would make one (its stack formatted as each socket is
    // destroyed with it) at the end of every run.
    await this.#dispatcher?.destroy(CLIENT_CLOSED).catch(() => undefined);
  }

  async #followRedirects(spec: RequestSpec, start: URL): Promise<HttpResponse> {
    let url = start;
    for (let hop = 0; ; hop++) {
      const response = await this.#send(spec, url);
      const location = response.headers.location;
      if (response.status < 300 || response.status >= 400 || response.status === 304 || location === undefined) {
        return response;
      }
      if (!isSafeMethod(spec.method)) {
        throw new CrawlError(
          `unexpected redirect (HTTP ${response.status}) in answer to ${spec.method} ${url.pathname}; not followed`,
          ExitCode.failure,
          { httpStatus: response.status },
        );
      }
      if (hop >= MAX_REDIRECTS) {
        throw new CrawlError(`too many redirects (more than ${MAX_REDIRECTS}) from GET ${start.pathname}`, ExitCode.failure, {
          httpStatus: response.status,
        });
      }
      const next = parseLink(Array.isArray(location) ? location[0] ?? '' : location, url, `the service redirected (HTTP ${response.status})`);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw new CrawlError(`redirect to an unsupported URL scheme (${next.protocol})`, ExitCode.failure);
      }
      checkTransport(next, this.#options.allowHttp);
      if (spec.sameOriginOnly && !sameOrigin(next, this.baseUrl)) {
        throw new CrossOriginAnswerError(
          `${spec.method} ${start.pathname} was redirected (HTTP ${response.status}) to another origin (${next.origin}), where the key is not sent: no answer from there can tell whether ${this.baseUrl.origin} accepts the key`,
          response.status,
        );
      }
      this.#trace(`following redirect (HTTP ${response.status}) to ${displayUrl(next)}`);
      url = next;
    }
  }

  /** One exchange: connect, send, read the whole body within the deadline and the size cap. */
  async #send(spec: RequestSpec, url: URL): Promise<HttpResponse> {
    const { method, body, maxBodyBytes } = spec;
    const [undici, tls] = await Promise.all([loadUndici(), this.#trust()]);
    const interrupt = this.#options.interrupt;
    // Ctrl-C before a request is sent: it is not sent.
    if (interrupt?.aborted) throw interrupt.reason;
    // The whole exchange (connect, headers, every byte of the body) within --timeout, on the run's
    // clock (connecting has its own, shorter bound too: undici's, on real time; see the
    // dispatcher), or until close(). A request that changes something is not abandoned once sent,
    // Ctrl-C or not: its answer is read to the end (bounded by the deadline), so the caller knows
    // what the service did (a key it created is handed over instead of lost). Reads stop at once.
    const mutation = !isSafeMethod(method);
    const deadline = timeoutSignal(this.#clock, this.#options.timeoutMs, interrupt && !mutation ? [this.#closed.signal, interrupt] : [this.#closed.signal]);
    const signal = deadline.signal;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.#options.userAgent };
    // The key is for the service's origin only: never for a redirect target or link elsewhere.
    const withKey = this.#options.apiKey !== undefined && sameOrigin(url, this.baseUrl);
    if (withKey) headers.authorization = `Bearer ${this.#options.apiKey}`;
    let payload: string | Buffer | undefined;
    if (spec.rawBody !== undefined) {
      payload = spec.rawBody;
      headers['content-type'] = 'application/json; charset=utf-8';
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    // The caller's own headers (validated by it), by lower-case name: one content-type, one accept.
    // Never the Authorization header: the key is the client's to send, to its origin only.
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
      if (name.toLowerCase() !== 'authorization') headers[name.toLowerCase()] = value;
    }
    if (this.#options.trace) {
      this.#trace(`${method} ${displayUrl(url)}`);
      this.#trace(withKey ? `Authorization: Bearer ${maskKey(this.#options.apiKey ?? '')}` : 'Authorization: (none)');
    }
    // Date.now, not performance.now: the latter loads perf_hooks' internals, for a trace in ms.
    const started = Date.now();
    let status = 0;
    // Due when its deadline passes, on the same clock.
    let settled = mutation ? this.#options.onMutation?.(this.#clock.now() + this.#options.timeoutMs) : undefined;
    try {
      const response = await undici.request.call(this.#getDispatcher(undici), {
        origin: url.origin,
        path: url.pathname + url.search,
        method,
        headers,
        body: payload,
        signal,
      });
      status = response.statusCode;
      const success = status >= 200 && status < 300;
      const max = success ? maxBodyBytes ?? this.#options.maxBodyBytes ?? MAX_DOCUMENT_BYTES : MAX_ERROR_BODY_BYTES;
      // A body announced as too large is refused before a byte of it is read.
      const announced = Number(headerValue(response.headers['content-length']));
      let text: string | undefined;
      if (announced > max) {
        response.body.destroy();
        if (success) throw tooLarge(max, method, url, status);
      } else {
        text = await readBody(response.body, max);
        if (text === undefined && success) throw tooLarge(max, method, url, status);
      }
      if (text === undefined) {
        // An error body that large holds no message worth the memory: the status speaks alone.
        this.#trace(`${status} in ${Date.now() - started} ms, body larger than ${formatMiB(max)}, not read`);
        return { status, url, headers: response.headers, text: '', bodyOmitted: true };
      }
      // Counted only for the trace: on a batch of pages it is a pass over megabytes.
      if (this.#options.trace) this.#trace(`${status} in ${Date.now() - started} ms, ${Buffer.byteLength(text)} bytes`);
      // A server (or a proxy) that echoes the request's Authorization header back, in an error, a
      // job's errorMessage or a page record, would put the key on the terminal, into --json output
      // or into an export. The key it was sent, and any other key of this run, is never data the
      // user asked for: it is redacted, in whatever encoding it came, before anything reads the body.
      // A key created by this request is not registered yet, so POST /api/keys still hands it over.
      text = this.#redactor.redact(text);
      return { status, url, headers: response.headers, text };
    } catch (error) {
      // A mutation's failure is reported as it is (a timeout: the outcome is unknown), not as the interrupt.
      if (interrupt?.aborted && !mutation) throw interrupt.reason;
      if (error instanceof CrawlError) throw error;
      const ms = Date.now() - started;
      if (deadline.timedOut()) {
        this.#trace(`timed out after ${ms} ms`);
        throw new NetworkError(
          `timed out after ${formatSeconds(this.#options.timeoutMs)} waiting for ${method} ${url.pathname}${status ? ` (HTTP ${status}, body incomplete)` : ''}`,
          true,
          'raise the limit with --timeout <seconds> if the service is slow',
          true,
        );
      }
      const { reason, sent, hint, code } = describeNetworkFailure(error);
      const widen = this.#widened ? undefined : tls?.widen;
      if (widen !== undefined && isUnknownAuthority(code)) {
        this.#trace(`failed after ${ms} ms: ${reason}; trying again with a wider set of certificate authorities`);
        this.#widened = true;
        this.#tlsContext = widen();
        const old = this.#dispatcher;
        this.#dispatcher = undefined;
        void old?.destroy().catch(() => undefined);
        settled?.();
        settled = undefined;
        return this.#send(spec, url);
      }
      this.#trace(`failed after ${ms} ms: ${reason}`);
      throw new NetworkError(`${reason}: ${method} ${displayUrl(url)}`, sent || status !== 0, hint, false, isTlsFailure(code));
    } finally {
      deadline.stop();
      settled?.();
    }
  }

  /** The authorities to trust, read once, at the first request. */
  #trust(): Promise<TlsTrust | undefined> {
    const tls = this.#options.tls;
    this.#tls ??=
      typeof tls === 'function'
        ? tls().then((trust) => {
            this.#tlsContext = trust.context;
            return trust;
          })
        : Promise.resolve(tls);
    return this.#tls;
  }

  #getDispatcher(undici: UndiciParts): Dispatcher {
    if (!this.#dispatcher) {
      const timeout = this.#options.timeoutMs;
      const tlsOptions = this.#tlsContext === undefined ? {} : { secureContext: this.#tlsContext };
      // EnvHttpProxyAgent is a plain keep-alive Agent unless HTTP(S)_PROXY is set, and honours NO_PROXY.
      this.#dispatcher = new undici.EnvHttpProxyAgent({
        ...this.#options.proxy,
        // Connecting (a black-holed address) is given up within 10 s even under a longer --timeout:
        // undici's own bound, on real time.
        connect: { timeout: Math.min(timeout, 10_000), ...tlsOptions },
        // Through a proxy: the tunnel's TLS to the service, and to an https:// proxy itself.
        requestTls: tlsOptions,
        proxyTls: tlsOptions,
        // The request's deadline bounds the headers and the body: undici's own timers, on real
        // time, would only race it to the same end with another message.
        headersTimeout: 0,
        bodyTimeout: 0,
        keepAliveTimeout: 10_000,
        // Node's default limit, given here so undici need not load node:http to read it (see
        // src/build/patch-undici.ts): a command's start-up pays for every module it loads.
        maxHeaderSize: MAX_HEADER_BYTES,
      });
    }
    return this.#dispatcher;
  }

  #trace(line: string): void {
    this.#options.trace?.(line);
  }
}

/** A request asked of a client already closed: said so, rather than as undici's "destroyed". */
function closedError(method: Method, url: URL): NetworkError {
  return new NetworkError(`the client was closed before ${method} ${displayUrl(url)} was sent`, false);
}

/**
 * A timeout that ends a request tried several times says so: "timed out after 30 s" alone reads as
 * the whole wait, when each attempt had its 30 s.
 */
function countedTimeout(error: unknown, attempts: number, timeouts: number): unknown {
  if (!(error instanceof NetworkError) || !error.timedOut) return error;
  const which = timeouts === attempts ? `on each of ${attempts} attempts` : `on the last of ${attempts} attempts`;
  return new NetworkError(`${error.message}, ${which}`, error.mayHaveReachedServer, error.hint, true);
}

/** The whole body as text, or undefined (the rest unread) once it passes `max` bytes. */
async function readBody(body: AsyncIterable<Buffer> & { destroy?: () => void }, max: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy?.();
      return undefined;
    }
    chunks.push(chunk);
  }
  // A body in one chunk (most are) is decoded as it is; else the chunks are let go before the
  // text is made: at the cap, that is the body's size less at the peak.
  const whole = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
  chunks.length = 0;
  // Invalid UTF-8 becomes U+FFFD rather than an exception: the text is still shown or parsed.
  return UTF8.decode(whole);
}

/** A URL the server gave (a redirect, a next page); one that does not parse is a malformed response. */
function parseLink(link: string, base: URL, what: string): URL {
  try {
    return new URL(link, base);
  } catch {
    const shown = JSON.stringify(link.length > 100 ? `${link.slice(0, 100)}…` : link);
    throw new CrawlError(`malformed response: ${what} to ${shown}, which is not a valid URL`, ExitCode.failure);
  }
}

function tooLarge(max: number, method: Method, url: URL, status: number): ResponseTooLargeError {
  return new ResponseTooLargeError(`response to ${method} ${url.pathname} (HTTP ${status}) is larger than ${formatMiB(max)}; refusing to read it`, status);
}

function formatMiB(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MiB`;
}

/** The error for a non-2xx answer: the status, the server's own message, the hint, Retry-After. */
export function statusError(response: HttpResponse, label: string, now: number, unauthorizedHint?: string): HttpStatusError {
  const contentType = headerValue(response.headers['content-type']);
  const message = serverMessage(response.text, contentType);
  const omitted = response.bodyOmitted ? ` (its body is larger than ${formatMiB(MAX_ERROR_BODY_BYTES)} and was not read)` : '';
  const text = `${label} failed: HTTP ${response.status}${message ? `: ${message}` : ''}${omitted}`;
  const retryAfter = parseRetryAfter(response.headers['retry-after'], now);
  return new HttpStatusError(text, response.status, message, hintForStatus(response.status, unauthorizedHint), retryAfter);
}

export function parseJsonBody(response: HttpResponse, method: Method): unknown {
  try {
    return JSON.parse(response.text);
  } catch {
    throw notJsonError(response, method);
  }
}

/** A 2xx whose body is not JSON: a malformed response (exit 1). */
export function notJsonError(response: HttpResponse, method: Method): CrawlError {
  // A web page where the API should be: the base URL most likely names a web site, not the service.
  const page = looksLikeHtml(response.text, headerValue(response.headers['content-type']));
  return new CrawlError(
    `malformed response to ${method} ${response.url.pathname}: the body is not valid JSON${page ? ' but an HTML page' : ''} (HTTP ${response.status})`,
    ExitCode.failure,
    {
      httpStatus: response.status,
      ...(page ? { hint: `a web site or a proxy answered: is ${response.url.origin} the crawl service's API? (--base-url, CRAWL_BASE_URL)` } : {}),
    },
  );
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

