import { UsageError } from '../errors.js';

/** Parses a base URL from flag, env or config; only http(s), no credentials, query or fragment. */
export function parseBaseUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    // Shown without a user and password it may carry (`http://user:KEY@host:port` with a bad port).
    const shown = value.replace(/^([a-z][a-z\d+.-]*:\/\/)[^/?#]*@/i, '$1');
    throw new UsageError(`invalid base URL "${shown}"`, 'give an absolute URL such as https://crawl.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`invalid base URL "${value}": only http:// and https:// are supported`);
  }
  if (url.username || url.password) {
    throw new UsageError('the base URL must not contain credentials', 'store the key with `crawl auth login`');
  }
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** A dotted-quad IPv4 address: the form the URL parser gives every IPv4 host (`127.1` is `127.0.0.1`). */
const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

// No node:net for isIP: it would load Node's whole network stack into every command's start,
// help included, for a question two patterns answer.
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (IPV4.test(host)) return host.startsWith('127.');
  // Only an IPv6 address holds a colon; an IPv4-mapped loopback comes dotted or, from the URL parser, in hex.
  if (host.includes(':')) return host === '::1' || host === '0:0:0:0:0:0:0:1' || /^::ffff:(?:127\.|7f[0-9a-f]{2}:)/i.test(host);
  return false;
}

/** The key would cross the network in clear: refuse http:// to anything but loopback. */
export function checkTransport(url: URL, allowHttp: boolean): void {
  if (url.protocol === 'http:' && !allowHttp && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `refusing to send the API key over plain http:// to ${url.host}`,
      'use https://, or pass --allow-http if this network is trusted',
    );
  }
}

/**
 * Base URL + path segments, each percent-encoded so that an id such as `a/../x` or `x?y#z`
 * stays exactly one segment and can never climb out of the API path.
 */
export function buildUrl(base: URL, segments: readonly string[], query?: Record<string, string | number | undefined>): URL {
  const url = new URL(base.href);
  const encoded = segments.map((s) => encodeSegment(s));
  url.pathname = base.pathname.replace(/\/$/, '') + '/' + encoded.join('/');
  if (query) {
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
  }
  return url;
}

/**
 * Why `segment` cannot be sent as one path segment, or undefined when it can. The URL parser
 * treats "%2E" like "." (and "%2E%2E" like ".."), so no encoding keeps these from being
 * dot-segments; an empty one would address the collection instead of an item; and a lone UTF-16
 * surrogate has no UTF-8 form to percent-encode.
 */
export function pathSegmentProblem(segment: string): string | undefined {
  if (segment === '') return 'it is empty';
  if (segment === '.' || segment === '..') return 'it is a dot-segment, which would name another path';
  if (LONE_SURROGATE.test(segment)) return 'it is not well-formed Unicode';
  return undefined;
}

/** Refuses (exit 2) an id that cannot be sent as one path segment; callers check early with it too. */
export function checkPathSegment(segment: string): string {
  const problem = pathSegmentProblem(segment);
  if (problem !== undefined) {
    throw new UsageError(`invalid id ${JSON.stringify(segment)}: it cannot be sent as a path segment (${problem})`);
  }
  return segment;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function encodeSegment(segment: string): string {
  return encodeURIComponent(checkPathSegment(segment));
}

export function sameOrigin(a: URL, b: URL): boolean {
  return a.origin === b.origin;
}

/**
 * A URL as shown in messages and traces: origin, path and query, no fragment. The query is kept on
 * purpose: it is our own `limit` or a cursor from the service's `next` link, and tells which batch
 * failed. Nothing secret can be in it: the key travels only in the Authorization header, the base
 * URL may not carry a query or credentials (parseBaseUrl), and `origin` drops any user:password
 * that a redirect's Location may hold.
 */
export function displayUrl(url: URL): string {
  return `${url.origin}${url.pathname}${url.search}`;
}
