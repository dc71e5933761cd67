import type { Dispatcher } from 'undici';
import { CrawlError, InterruptedError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { maskKey } from '../output/format.js';
import { Redactor } from '../text/redact.js';
import { looksLikeHtml, serverMessage } from './error-body.js';
import { HttpStatusError, NetworkError, ResponseTooLargeError, describeNetworkFailure, hintForStatus } from './errors.js';
import { MAX_ATTEMPTS, MAX_RETRY_AFTER_MS, RETRY_STATUSES, backoffDelay, parseRetryAfter } from './retry.js';
import { loadUndici, type UndiciParts } from './undici.js';
import { buildUrl, checkTransport, displayUrl, sameOrigin } from './url.js';

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export type Method = 'GET' | 'POST' | 'DELETE';

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
  maxBodyBytes?: number;
  /** The run's secrets, removed from every body; the client adds its own key to it. */
  redactor?: Redactor | undefined;
}

export interface RequestSpec {
  method: Method;
  /** Path segments under the base URL; each is encoded as exactly one segment. */
  path?: readonly string[];
  /** Or a link given by the server: an absolute URL or a path, resolved against the base URL. */
  url?: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** GETs are retried unless this is false; other methods never are. */
  retry?: boolean;
}

export interface HttpResponse {
  status: number;
  url: URL;
  headers: Record<string, string | string[] | undefined>;
  text: string;
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
  #dispatcher: Dispatcher | undefined;

  constructor(options: HttpClientOptions) {
    this.#options = options;
    this.baseUrl = options.baseUrl;
    checkTransport(options.baseUrl, options.allowHttp);
    this.#redactor = options.redactor ?? new Redactor();
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
    const url = this.resolve(spec);
    const retryable = spec.method === 'GET' && spec.retry !== false;
    const label = `${spec.method} ${url.pathname}`;
    for (let attempt = 1; ; attempt++) {
      let failure: CrawlError;
      let delay: number;
      try {
        const response = await this.#followRedirects(spec, url);
        if (response.status >= 200 && response.status < 300) return response;
        const statusFailure = statusError(response, label);
        failure = statusFailure;
        if (!retryable || !RETRY_STATUSES.has(response.status) || attempt >= MAX_ATTEMPTS) throw failure;
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
        if (!(error instanceof NetworkError) || !retryable || attempt >= MAX_ATTEMPTS) throw error;
        failure = error;
        delay = backoffDelay(attempt);
      }
      const reason = failure.httpStatus !== undefined ? `HTTP ${failure.httpStatus}` : failure.message;
      this.#trace(`retrying ${label} in ${delay} ms (attempt ${attempt + 1} of ${MAX_ATTEMPTS}) after ${reason}`);
      await this.sleep(delay);
    }
  }

  /** request() and JSON.parse of the body; a body that is not JSON is a malformed response (exit 1). */
  async requestJson(spec: RequestSpec): Promise<{ response: HttpResponse; body: unknown }> {
    const response = await this.request(spec);
    return { response, body: parseJsonBody(response, spec.method) };
  }

  /** Waits, but wakes at once on Ctrl-C. */
  sleep(ms: number): Promise<void> {
    const interrupt = this.#options.interrupt;
    return new Promise((resolve, reject) => {
      if (interrupt?.aborted) return reject(interrupt.reason);
      const timer = setTimeout(() => {
        interrupt?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(interrupt?.reason ?? new InterruptedError());
      };
      interrupt?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async close(): Promise<void> {
    await this.#dispatcher?.destroy().catch(() => undefined);
  }

  async #followRedirects(spec: RequestSpec, start: URL): Promise<HttpResponse> {
    let url = start;
    for (let hop = 0; ; hop++) {
      const response = await this.#send(spec.method, url, spec.body);
      const location = response.headers.location;
      if (response.status < 300 || response.status >= 400 || response.status === 304 || location === undefined) {
        return response;
      }
      if (spec.method !== 'GET') {
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
      this.#trace(`following redirect (HTTP ${response.status}) to ${displayUrl(next)}`);
      url = next;
    }
  }

  /** One exchange: connect, send, read the whole body within the deadline and the size cap. */
  async #send(method: Method, url: URL, body: unknown): Promise<HttpResponse> {
    const undici = await loadUndici();
    const interrupt = this.#options.interrupt;
    if (interrupt?.aborted) throw interrupt.reason;
    const deadline = AbortSignal.timeout(this.#options.timeoutMs);
    const signal = interrupt ? AbortSignal.any([deadline, interrupt]) : deadline;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.#options.userAgent };
    // The key is for the service's origin only: never for a redirect target or link elsewhere.
    const withKey = this.#options.apiKey !== undefined && sameOrigin(url, this.baseUrl);
    if (withKey) headers.authorization = `Bearer ${this.#options.apiKey}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    this.#trace(`${method} ${displayUrl(url)}`);
    this.#trace(withKey ? `Authorization: Bearer ${maskKey(this.#options.apiKey ?? '')}` : 'Authorization: (none)');
    // Date.now, not performance.now: the latter loads perf_hooks' internals, for a trace in ms.
    const started = Date.now();
    let status = 0;
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
      const max = this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
      // A body announced as too large is refused before a byte of it is read.
      if (Number(headerValue(response.headers['content-length'])) > max) {
        response.body.destroy();
        throw tooLarge(max, method, url, status);
      }
      const received = await readBody(response.body, max, method, url, status);
      const ms = Date.now() - started;
      this.#trace(`${status} in ${ms} ms, ${Buffer.byteLength(received)} bytes`);
      // A server (or a proxy) that echoes the request's Authorization header back, in an error, a
      // job's errorMessage or a page record, would put the key on the terminal, into --json output
      // or into an export. The key it was sent, and any other key of this run, is never data the
      // user asked for: it is redacted, in whatever encoding it came, before anything reads the body.
      // A key created by this request is not registered yet, so POST /api/keys still hands it over.
      const text = this.#redactor.redact(received);
      return { status, url, headers: response.headers, text };
    } catch (error) {
      if (interrupt?.aborted) throw interrupt.reason;
      if (error instanceof CrawlError) throw error;
      const ms = Date.now() - started;
      if (deadline.aborted) {
        this.#trace(`timed out after ${ms} ms`);
        throw new NetworkError(
          `timed out after ${formatSeconds(this.#options.timeoutMs)} waiting for ${method} ${url.pathname}${status ? ` (HTTP ${status}, body incomplete)` : ''}`,
          true,
          'raise the limit with --timeout <seconds> if the service is slow',
        );
      }
      const { reason, sent, hint } = describeNetworkFailure(error);
      this.#trace(`failed after ${ms} ms: ${reason}`);
      throw new NetworkError(`${reason}: ${method} ${displayUrl(url)}`, sent || status !== 0, hint);
    }
  }

  #getDispatcher(undici: UndiciParts): Dispatcher {
    if (!this.#dispatcher) {
      const timeout = this.#options.timeoutMs;
      // EnvHttpProxyAgent is a plain keep-alive Agent unless HTTP(S)_PROXY is set, and honours NO_PROXY.
      this.#dispatcher = new undici.EnvHttpProxyAgent({
        connect: { timeout: Math.min(timeout, 10_000) },
        headersTimeout: timeout,
        bodyTimeout: timeout,
        keepAliveTimeout: 10_000,
      });
    }
    return this.#dispatcher;
  }

  #trace(line: string): void {
    this.#options.trace?.(line);
  }
}

async function readBody(body: AsyncIterable<Buffer> & { destroy?: () => void }, max: number, method: Method, url: URL, status: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy?.();
      throw tooLarge(max, method, url, status);
    }
    chunks.push(chunk);
  }
  // Invalid UTF-8 becomes U+FFFD rather than an exception: the text is still shown or parsed.
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks, size));
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
  return new ResponseTooLargeError(`response to ${method} ${url.pathname} (HTTP ${status}) is larger than ${Math.round(max / 1024 / 1024)} MiB; refusing to read it`, status);
}

function statusError(response: HttpResponse, label: string): HttpStatusError {
  const contentType = headerValue(response.headers['content-type']);
  const message = serverMessage(response.text, contentType);
  const text = `${label} failed: HTTP ${response.status}${message ? `: ${message}` : ''}`;
  const retryAfter = parseRetryAfter(response.headers['retry-after'], Date.now());
  return new HttpStatusError(text, response.status, message, hintForStatus(response.status), retryAfter);
}

export function parseJsonBody(response: HttpResponse, method: Method): unknown {
  try {
    return JSON.parse(response.text);
  } catch {
    // A web page where the API should be: the base URL most likely names a web site, not the service.
    const page = looksLikeHtml(response.text, headerValue(response.headers['content-type']));
    throw new CrawlError(
      `malformed response to ${method} ${response.url.pathname}: the body is not valid JSON${page ? ' but an HTML page' : ''} (HTTP ${response.status})`,
      ExitCode.failure,
      {
        httpStatus: response.status,
        ...(page ? { hint: `a web site or a proxy answered: is ${response.url.origin} the crawl service's API? (--base-url, CRAWL_BASE_URL)` } : {}),
      },
    );
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
