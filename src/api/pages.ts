// GET /api/crawl/:id/pages, whose shape the service does not document. Tolerated, as the contract
// says: records in `pages` or `data`; the next batch named by `next` or `nextCursor`, as an
// absolute URL, a path, or an opaque cursor sent back as `cursor`; the end when it is null or absent.
//
// Records are passed through, so batches are never parsed into objects: the body is checked as JSON
// and the records array is kept as a span of its text (src/text/json-scan.ts), written out as sent.
import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { MAX_BATCH_BYTES, notJsonError, type HttpClient, type HttpResponse, type RequestSpec } from '../http/client.js';
import { buildUrl } from '../http/url.js';
import { documentMembers, JsonSyntaxError, type JsonKind, type JsonSpan } from '../text/json-scan.js';
import { RecentMap } from '../text/recent-set.js';
import { sanitize } from '../text/sanitize.js';
import { toCount } from '../text/format.js';
import { inlinePagesSpan, type JobResponse } from './jobs.js';
import { malformed } from './shape.js';

/** The service sends pages inline only for completed jobs of at most this many pages. */
const INLINE_LIMIT = 100;

/** A completed job's pages as its answer carried them inline. */
export interface InlinePages {
  /** The job's raw body, and where its `pages` array lies in it (undefined: nowhere to be found). */
  text: string;
  records: JsonSpan | undefined;
  /** How many pages came inline, and how many the job says it has. */
  sent: number;
  total: number | undefined;
}

/**
 * The pages the job's own answer holds, when they are all of them: a completed job of at most
 * INLINE_LIMIT pages. Otherwise undefined, and the pages endpoint is read (readPageBatches).
 */
export function inlinePages(response: JobResponse): InlinePages | undefined {
  const { job, pages } = response;
  const total = toCount(job.pagesTotal);
  if (job.status !== 'completed' || pages === undefined || (total ?? pages.length) > INLINE_LIMIT) return undefined;
  return { text: response.raw, records: inlinePagesSpan(response.raw), sent: pages.length, total };
}

/** The sandbox's maximum, and a common one: few round trips, a batch of a few hundred KB at most. */
export const PAGE_SIZE = 1000;

export interface PageReadOptions {
  /** Records per request; the service may send fewer (or cap it). */
  pageSize?: number;
  /** Stop after this many records: no batch is requested beyond what they need. */
  max?: number;
}

/** Where the next batch is: a link the server gave, or a cursor to send back. */
export type NextBatch = { kind: 'link'; url: string } | { kind: 'cursor'; cursor: string };

/** One batch: its body, and where in it the records are. */
export interface PageBatch {
  text: string;
  /** The records array (checked JSON; `count` elements). */
  records: JsonSpan;
  /** How many of them to write: fewer than all when --limit ends inside this batch. */
  take: number;
}

/**
 * Yields the job's batches in order. The next batch is requested while the caller writes the
 * current one, so the network and the output overlap; never more than one batch ahead, so memory
 * stays flat whatever the job's size. Pagination that makes no progress (the same records again
 * under new links, empty batches with ever new ones, the same link twice) ends in a CrawlError
 * before anything is written twice.
 */
export async function* readPageBatches(http: HttpClient, id: string, options: PageReadOptions = {}): AsyncGenerator<PageBatch> {
  const pageSize = options.pageSize ?? PAGE_SIZE;
  const max = options.max ?? Infinity;
  const progress = new ProgressCheck();
  let taken = 0;
  let pending: Promise<HttpResponse> | undefined = http.request(firstRequest(id, Math.min(pageSize, max)));
  while (pending) {
    const response: HttpResponse = await pending;
    pending = undefined;
    const what: string = `GET ${response.url.pathname}`;
    const batch = parseBatch(response, what);
    const count = batch.records.count ?? 0;
    await progress.records(batch.text, batch.records, count, batch.next !== undefined, what);
    const take = Math.min(count, max - taken);
    taken += take;
    if (batch.next !== undefined && taken < max) {
      const next = batch.next;
      const limit = Math.min(pageSize, max - taken);
      // A next page that cannot be followed fails only after this batch is written: its records are good.
      pending = progress.next(next, what).then(() => http.request(nextRequest(http, id, next, limit)));
      // Awaited after the caller's write (so this batch is kept); until then it is not unhandled.
      pending.catch(() => undefined);
      await untilSent();
    }
    if (take > 0) yield { text: batch.text, records: batch.records, take };
  }
}

/**
 * undici writes a request on a reused keep-alive socket only after an event-loop check phase (it
 * first lets the socket report a close the server may have sent). Two check phases here let the
 * prefetch leave before the caller's write, which is CPU-bound and would otherwise hold it back.
 * If undici changes, only the overlap is lost.
 */
async function untilSent(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}

export interface ParsedBatch {
  text: string;
  records: JsonSpan;
  next: NextBatch | undefined;
}

function firstRequest(id: string, limit: number): RequestSpec {
  return { method: 'GET', path: ['api', 'crawl', id, 'pages'], query: { limit }, maxBodyBytes: MAX_BATCH_BYTES };
}

function nextRequest(http: HttpClient, id: string, next: NextBatch, limit: number): RequestSpec {
  if (next.kind === 'cursor') {
    return { method: 'GET', path: ['api', 'crawl', id, 'pages'], query: { cursor: next.cursor, limit }, maxBodyBytes: MAX_BATCH_BYTES };
  }
  const url = http.resolve({ url: next.url });
  if (url.origin !== http.baseUrl.origin) {
    // The HTTP layer would send it without the key, but a cursor in that URL is still the user's data.
    throw new CrawlError(
      `refusing to follow the next page link to another origin (${url.origin}); the service is ${http.baseUrl.origin}`,
      ExitCode.failure,
    );
  }
  // The key goes with it: only the job's own pages endpoint is worth that, whatever the query.
  const own = buildUrl(http.baseUrl, ['api', 'crawl', id, 'pages']);
  if (!samePath(url, own)) {
    throw new CrawlError(
      `refusing to follow the next page link to ${url.pathname}: only this job's pages (${own.pathname}) are followed`,
      ExitCode.failure,
    );
  }
  // `limit` is our own parameter: set it on the server's link too, so the page size holds.
  return { method: 'GET', url: next.url, query: { limit }, maxBodyBytes: MAX_BATCH_BYTES };
}

/**
 * The same path, segment by segment, however each is percent-encoded. The URL parser has already
 * resolved dot-segments (".." and its encodings), so a link that climbs elsewhere differs here.
 */
function samePath(a: URL, b: URL): boolean {
  const left = a.pathname.split('/');
  const right = b.pathname.split('/');
  if (left.length !== right.length) return false;
  return left.every((segment, i) => decodeSegment(segment) === decodeSegment(right[i] as string));
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * Reads one batch body: a JSON object holding an array of records; anything else is malformed.
 * Nothing is parsed into objects but the next cursor.
 */
export function parseBatch(response: HttpResponse, what: string): ParsedBatch {
  const text = response.text;
  const spans = new Map<string, JsonSpan>();
  let kind: JsonKind;
  try {
    const members = documentMembers(text);
    for (let step = members.next(); ; step = members.next()) {
      if (step.done) {
        kind = step.value;
        break;
      }
      const { key, value } = step.value;
      // The last of a repeated key counts, as with JSON.parse.
      if (key === 'pages' || key === 'data' || key === 'next' || key === 'nextCursor') spans.set(key, value);
    }
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw notJsonError(response, 'GET');
    throw error;
  }
  if (kind !== 'object') throw malformed(what, 'expected a JSON object');
  const pages = spans.get('pages');
  const data = spans.get('data');
  let records: JsonSpan | undefined;
  if (pages?.kind === 'array') records = pages;
  else if (data?.kind === 'array') records = data;
  if (records === undefined) {
    const present = pages !== undefined && pages.kind !== 'null' ? ['pages', pages] as const : data !== undefined ? ['data', data] as const : undefined;
    throw malformed(what, present ? `"${present[0]}" is ${describeKind(present[1].kind)}, not an array` : 'no "pages" or "data" array');
  }
  return { text, records, next: chooseNext(spans, text, what) };
}

/** `next` unless it is null, else `nextCursor`: where the next batch is, if anywhere. */
function chooseNext(spans: ReadonlyMap<string, JsonSpan>, text: string, what: string): NextBatch | undefined {
  const nextSpan = spans.get('next');
  const raw = nextSpan !== undefined && nextSpan.kind !== 'null' ? nextSpan : spans.get('nextCursor');
  return raw === undefined ? undefined : parseNext(text, raw, what);
}

/**
 * For `crawl api --paginate`: the URL of the page after `current`, by the rules `job pages`
 * follows (`next` or `nextCursor` at the top of a JSON object; a cursor is sent back as `cursor`
 * with the same query; a link only on the same origin and path, since the key goes with it), or
 * undefined at the end, or when the body is not a JSON object.
 */
export function followingPage(http: HttpClient, current: URL, text: string, what: string): string | undefined {
  const spans = new Map<string, JsonSpan>();
  try {
    const members = documentMembers(text);
    for (let step = members.next(); !step.done; step = members.next()) {
      if (step.value.key === 'next' || step.value.key === 'nextCursor') spans.set(step.value.key, step.value.value);
    }
  } catch (error) {
    if (error instanceof JsonSyntaxError) return undefined;
    throw error;
  }
  const next = chooseNext(spans, text, what);
  if (next === undefined) return undefined;
  if (next.kind === 'cursor') {
    const url = new URL(current);
    url.searchParams.set('cursor', next.cursor);
    return url.href;
  }
  const link = http.resolve({ url: next.url });
  if (link.origin !== http.baseUrl.origin || !samePath(link, current)) {
    throw new CrawlError(`refusing to follow the next page link to ${sanitize(link.origin + link.pathname)}: only ${current.pathname} on ${http.baseUrl.origin} is followed`, ExitCode.failure);
  }
  return link.href;
}

/**
 * `/...` or `http(s)://...` is a link; any other string is an opaque cursor, and so is a number,
 * sent back exactly as its digits were (a cursor beyond 2^53 must not be rounded).
 */
export function parseNext(text: string, span: JsonSpan, what: string): NextBatch | undefined {
  if (span.kind === 'null') return undefined;
  if (span.kind === 'number') return { kind: 'cursor', cursor: text.slice(span.start, span.end) };
  if (span.kind !== 'string') throw malformed(what, `the next page is ${describeKind(span.kind)}, not a link or a cursor`);
  const value = JSON.parse(text.slice(span.start, span.end)) as string;
  if (value === '') return undefined;
  if (value.startsWith('/') || /^https?:\/\//i.test(value)) return { kind: 'link', url: value };
  return { kind: 'cursor', cursor: value };
}

/** Batches remembered to catch a loop before it repeats a record: a few hundred KB at most. */
const REMEMBERED_BATCHES = 1024;
/** Empty batches in a row, each naming another next page, before the export gives up. */
const MAX_EMPTY_IN_A_ROW = 10;

/**
 * Tells pagination that makes progress from pagination that does not, in bounded memory. Each
 * batch's records are fingerprinted (SHA-1 of their text): the same records under a new link, or a
 * cycle of batches, is caught before the repeat is written, for cycles up to REMEMBERED_BATCHES
 * long; a longer cycle is still caught, one round later (Brent's checkpoints), so no export loops
 * for ever. Empty batches carry no fingerprint: a run of them with ever new next pages is the other
 * way to make no progress. And the same next page twice is a loop by itself.
 */
class ProgressCheck {
  readonly #batches = new RecentMap<string, number>(REMEMBERED_BATCHES);
  readonly #nexts = new RecentMap<string, true>(REMEMBERED_BATCHES);
  #number = 0;
  #emptyInARow = 0;
  #checkpoint: { fingerprint: string; number: number } | undefined;
  #stride = 1;
  #hash: ((text: string) => string) | undefined;

  async records(text: string, records: JsonSpan, count: number, hasNext: boolean, what: string): Promise<void> {
    const number = ++this.#number;
    if (count === 0) {
      this.#emptyInARow = hasNext ? this.#emptyInARow + 1 : 0;
      if (this.#emptyInARow >= MAX_EMPTY_IN_A_ROW) {
        throw malformed(what, `the service sent ${MAX_EMPTY_IN_A_ROW} empty batches in a row, each naming another next page; stopping, as the export makes no progress`);
      }
      return;
    }
    this.#emptyInARow = 0;
    const fingerprint = (await this.#hasher())(text.slice(records.start, records.end));
    const earlier = this.#batches.get(fingerprint) ?? (this.#checkpoint?.fingerprint === fingerprint ? this.#checkpoint.number : undefined);
    if (earlier !== undefined) {
      const noun = count === 1 ? 'record' : 'records';
      throw malformed(what, `the service sent the same ${count} ${noun} again (batch ${number} repeats batch ${earlier}) under another next page; stopping to avoid a loop`);
    }
    this.#batches.set(fingerprint, number);
    if (this.#checkpoint === undefined || number - this.#checkpoint.number >= this.#stride) {
      this.#checkpoint = { fingerprint, number };
      this.#stride *= 2;
    }
  }

  /** Asking for the same position again would repeat records for ever. */
  async next(next: NextBatch, what: string): Promise<void> {
    const full = `${next.kind}:${next.kind === 'link' ? next.url : next.cursor}`;
    // Long links are remembered by their fingerprint, so the memory stays bounded.
    const key = full.length > 128 ? (await this.#hasher())(full) : full;
    if (this.#nexts.has(key)) throw malformed(what, `the service sent the same next page twice (${describeNext(next)}); stopping to avoid a loop`);
    this.#nexts.set(key, true);
  }

  async #hasher(): Promise<(text: string) => string> {
    if (this.#hash === undefined) {
      // Loaded for paginated exports only: a status read never needs node:crypto.
      const { createHash } = await import('node:crypto');
      this.#hash = (text) => createHash('sha1').update(text).digest('base64');
    }
    return this.#hash;
  }
}

function describeNext(next: NextBatch): string {
  const text = next.kind === 'cursor' ? next.cursor : next.url;
  const shown = JSON.stringify(text.length > 80 ? text.slice(0, 80) + '…' : text);
  return next.kind === 'cursor' ? `cursor ${shown}` : `link ${shown}`;
}

function describeKind(kind: JsonKind): string {
  if (kind === 'null') return 'null';
  if (kind === 'true' || kind === 'false') return 'a boolean';
  return kind === 'object' || kind === 'array' ? `an ${kind}` : `a ${kind}`;
}
