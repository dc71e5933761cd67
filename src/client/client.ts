// The typed Node client: the CLI's own layers (settings, the HTTP client, api/) behind an object
// for scripts. Its rules are the CLI's: where the key may go, what is retried, how long a request
// may take, what every error's exit code is.
import { Settings } from '../config/settings.js';
import { allowConcurrentRequests } from '../platform/deadline.js';
import { InterruptedError, UsageError } from '../errors.js';
import { tlsOptionsFor, type TlsOptions } from '../http/trust.js';
import { HttpClient } from '../http/client.js';
import { proxyFromEnv } from '../http/proxy-env.js';
import { checkTransport, parseBaseUrl } from '../http/url.js';
import { keyDefect, trimKeyText } from '../text/keys.js';
import { Redactor } from '../text/redact.js';
import { VERSION } from '../version.js';
import { checkMs, JobsClient } from './jobs.js';
import { KeysClient } from './keys.js';
import type { ClientSystem, Connection } from './connection.js';
import type { ClientOptions, CrawlClient } from './types.js';

const DEFAULT_TIMEOUT_MS = 30_000;

export function makeClient(options: ClientOptions, system: ClientSystem): CrawlClient {
  const settings = new Settings(system.env, { ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }), ...(options.profile === undefined ? {} : { profile: options.profile }) }, {}, {}, system.platform);
  const base = parseBaseUrl(settings.requireBaseUrl().value);
  // Refused now, as the CLI refuses it before any request, not at the first call.
  checkTransport(base, options.allowHttp ?? false);
  checkMs('timeoutMs', options.timeoutMs, 'above 0');
  const given = options.apiKey === undefined ? undefined : givenKey(options.apiKey);
  const redactor = new Redactor();
  // The HTTP layer throws its interrupt signal's reason: an InterruptedError, whatever the caller aborted with.
  const interrupt = new AbortController();
  // Every request of the client follows it, as it follows the HTTP client's own.
  allowConcurrentRequests(interrupt.signal);
  const onAbort = (): void => interrupt.abort(new InterruptedError());
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  const clients = new Map<string, HttpClient>();
  // The same authorities as the CLI trusts (SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, the system store).
  let tls: TlsOptions | undefined;
  let key: string | undefined;
  const connection: Connection = {
    system,
    signal: interrupt.signal,
    redactor,
    apiKey() {
      key ??= given ?? settings.localApiKey().value;
      return key;
    },
    http(apiKey = connection.apiKey(), { evenIfAborted = false } = {}) {
      const id = `${evenIfAborted ? 'after-abort' : 'live'}\u0000${apiKey}`;
      let client = clients.get(id);
      if (!client) {
        client = new HttpClient({
          baseUrl: base,
          apiKey,
          timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          allowHttp: options.allowHttp ?? false,
          userAgent: `crawl-client/${VERSION} node/${system.nodeVersion}`,
          interrupt: evenIfAborted ? undefined : interrupt.signal,
          redactor,
          clock: system.clock,
          proxy: proxyFromEnv(system.env),
          tls: base.protocol === 'https:' ? (tls ??= tlsOptionsFor(system.env, system.nodeVersion, base.host)) : undefined,
        });
        clients.set(id, client);
      }
      return client;
    },
  };
  return {
    baseUrl: base.href,
    jobs: new JobsClient(connection),
    keys: new KeysClient(connection),
    async close() {
      options.signal?.removeEventListener('abort', onAbort);
      await Promise.all([...clients.values()].map((c) => c.close()));
    },
  };
}

/**
 * The `apiKey` option as CRAWL_API_KEY is taken: without the white space a file read leaves around
 * it (`readFileSync(file, 'utf8')` keeps the line break), and refused now, named by its defect and
 * never quoted, when no Authorization header could carry it; else the HTTP layer would reject it
 * at each request, an internal error retried as a network failure.
 */
function givenKey(apiKey: string): string {
  const key = trimKeyText(apiKey);
  if (key === '') throw new UsageError('the apiKey option is empty', 'give the key itself, or leave apiKey out to use CRAWL_API_KEY or the profile\'s key');
  const defect = keyDefect(key);
  if (defect !== undefined) throw new UsageError(`the apiKey option ${defect}; refusing to send it`, 'give the key alone, exactly as it was issued');
  return key;
}
