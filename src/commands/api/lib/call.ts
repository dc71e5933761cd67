import { followingPage } from '../../../api/pages.js';
import type { Deps } from '../../../deps.js';
import { CrawlError, UsageError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { ENV_KEY_UNAUTHORIZED_HINT } from '../../../http/errors.js';
import { isSafeMethod, MAX_BATCH_BYTES, MAX_DOCUMENT_BYTES, statusError, type HttpClient, type HttpResponse, type Method } from '../../../http/client.js';
import { sameOrigin } from '../../../http/url.js';
import { readAllStdin } from '../../../io/prompt.js';
import { describeFsError } from '../../../platform/fs-errors.js';
import { JsonSyntaxError, scanDocument } from '../../../text/json-scan.js';
import { prettyJson } from '../../../text/json-pretty.js';
import { RecentMap } from '../../../text/recent-set.js';
import { sanitize } from '../../../text/sanitize.js';
import { buildParams, fieldPath, JsonNumber, type FieldPath, paramsJson, queryPairs, type Params, type Scalar } from './fields.js';

/**
 * `crawl api <path>`: one authenticated request to any path of the configured service, as `gh api`
 * makes them, the answer written as received. The key goes only to the base URL's origin and
 * under its path; a request that changes something is never retried.
 */
export interface ApiOptions {
  path: string;
  /** -X; by default GET, or POST when there is a body (-f, -F, --input). */
  method: Method | undefined;
  /**
   * -f key=value (a string) and -F key=value (typed: true, false, null, numbers; @file, @- for
   * stdin), in order; the key may nest as gh's do (`a[b]`, `a[]`), and `key[]` has no value.
   */
  fields: ReadonlyArray<{ key: string; value: string | undefined; typed: boolean }>;
  /** -H 'Name: value', checked. */
  headers: Readonly<Record<string, string>>;
  /** --input <file|->: the body as it is; the fields then go to the query string. */
  input: string | undefined;
  /** -i: the status line and the headers before the body. */
  include: boolean;
  /** --paginate: follow `next` / `nextCursor` as `job pages` does, one value a line. */
  paginate: boolean;
}

/** Pages remembered to catch a service that sends the same next page again. */
const REMEMBERED_NEXTS = 1024;

export async function apiRun(deps: Deps, options: ApiOptions): Promise<number> {
  const http = await deps.http();
  const url = targetUrl(http, options.path);
  const bodyLess = options.input === undefined && options.fields.length === 0;
  // --paginate reads pages: its fields are a query (?limit=...), as a GET's are.
  const method: Method = options.method ?? (bodyLess || (options.paginate && options.input === undefined) ? 'GET' : 'POST');
  if (options.paginate && method !== 'GET') throw new UsageError(`--paginate follows the pages of a GET, not of a ${method}`);
  if (options.include && deps.jq) throw new UsageError('-i prints the status and headers, which are not JSON: --jq filters the body alone, so give one of them');
  if (method === 'POST' && createsKey(http, url)) {
    // The answer would hold a new key: the contract hands keys over in keys create (and rotate) only.
    throw new UsageError('a key is created with `crawl keys create <name>`, which hands it over once (and can store it); crawl api does not print keys', 'crawl keys create <name> [--save | --output-file <path>]');
  }

  // The fields are the JSON body, or, for a GET (or beside --input), the query string.
  const inQuery = options.input !== undefined || method === 'GET' || method === 'HEAD';
  const params = await readFields(deps, options.fields);
  if (inQuery) {
    for (const [key, value] of queryPairs(params)) url.searchParams.append(key, value);
  }
  const rawBody = options.input !== undefined ? await readInput(deps, options.input) : !inQuery ? paramsJson(params) : undefined;

  let response = await send(http, method, url.href, options.headers, rawBody);
  const seen = new RecentMap<string, true>(REMEMBERED_NEXTS);
  for (let page = 1; ; page++) {
    write(deps, response, options, page);
    if (response.status < 200 || response.status >= 300) throw statusError(response, `${method} ${url.pathname}`, deps.clock.now(), keyFromEnvironment(deps) ? ENV_KEY_UNAUTHORIZED_HINT : undefined);
    if (!options.paginate) return ExitCode.ok;
    const next = followingPage(http, url, response.text, `GET ${url.pathname}`);
    if (next === undefined) return ExitCode.ok;
    if (seen.get(next) !== undefined) {
      throw new CrawlError(`malformed response: GET ${url.pathname} page ${page} names a next page it named before; stopping to avoid a loop`, ExitCode.failure);
    }
    seen.set(next, true);
    response = await send(http, 'GET', next, options.headers, undefined);
  }
}

/**
 * The path under the base URL (`api/keys` and `/api/keys` alike, as gh takes them), or a whole URL
 * on the base URL's origin and under its path. Anywhere else the key must not go: refused.
 */
export function targetUrl(http: HttpClient, path: string): URL {
  const base = http.baseUrl;
  const prefix = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  let url: URL;
  try {
    url = /^[a-z][a-z0-9+.-]*:/i.test(path) ? new URL(path) : new URL(path.replace(/^\/+/, ''), new URL(prefix, base));
  } catch {
    throw new UsageError(`"${sanitize(path)}" is not a path or URL`);
  }
  if (!sameOrigin(url, base) || !(url.pathname === base.pathname || url.pathname.startsWith(prefix))) {
    throw new UsageError(
      `${sanitize(url.origin + url.pathname)} is not under the configured service (${base.origin}${prefix}): crawl sends the key nowhere else`,
      'give a path such as api/keys, relative to the base URL',
    );
  }
  return url;
}

/** POST to the keys collection (`api/keys` under the base URL): what creates a key. */
function createsKey(http: HttpClient, url: URL): boolean {
  const prefix = http.baseUrl.pathname.endsWith('/') ? http.baseUrl.pathname : `${http.baseUrl.pathname}/`;
  return url.pathname.replace(/\/+$/, '') === `${prefix}api/keys`;
}

async function send(http: HttpClient, method: Method, url: string, headers: Readonly<Record<string, string>>, rawBody: string | Buffer | undefined): Promise<HttpResponse> {
  return http.request({
    method,
    url,
    headers,
    ...(rawBody === undefined ? {} : { rawBody }),
    anyStatus: true,
    // Nothing is parsed into objects but the next page's link, so a body may be as large as a batch of pages.
    maxBodyBytes: MAX_BATCH_BYTES,
    retry: isSafeMethod(method),
  });
}

/** Every key checked before any value is read (a file, stdin), then the values placed as gh places them. */
async function readFields(deps: Deps, fields: ApiOptions['fields']): Promise<Params> {
  const checked = fields.map((field) => ({ ...field, ...fieldPath(field.typed ? '-F' : '-f', field.key, field.value) }));
  const placed: Array<FieldPath & { value: Scalar | undefined }> = [];
  for (const { key, value, typed, ...field } of checked) {
    placed.push({ ...field, value: value === undefined ? undefined : typed ? await typedValue(deps, key, value) : value });
  }
  return buildParams(placed);
}

/** -F's value: true, false, null and numbers as JSON (a number as written), @file or @- read, else the string. */
async function typedValue(deps: Deps, key: string, value: string): Promise<Scalar> {
  if (value.startsWith('@')) return value === '@-' ? readAllStdin(deps.io, deps.signal, { platform: deps.platform, max: MAX_DOCUMENT_BYTES }) : readFileText(value.slice(1), `-F ${key}`);
  if (value === 'true' || value === 'false') return value === 'true';
  if (value === 'null') return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(value) && Number.isFinite(Number(value))) return new JsonNumber(value);
  return value;
}

async function readInput(deps: Deps, input: string): Promise<string | Buffer> {
  if (input === '-') return readAllStdin(deps.io, deps.signal, { platform: deps.platform, max: MAX_DOCUMENT_BYTES });
  return readFileBytes(input, '--input');
}

async function readFileBytes(path: string, flag: string): Promise<Buffer> {
  // Imported here: node:fs/promises has no place in the start-up of the other commands, which share this chunk.
  const { readFile } = await import('node:fs/promises');
  try {
    const bytes = await readFile(path);
    if (bytes.length > MAX_DOCUMENT_BYTES) throw new UsageError(`${flag}: ${path} is larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB`);
    return bytes;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${flag}: cannot read ${path}: ${describeFsError(error)}`);
  }
}

async function readFileText(path: string, flag: string): Promise<string> {
  return (await readFileBytes(path, flag)).toString('utf8');
}

/** -i, then the body: pretty JSON on a terminal (escapes shown, not acted on), as received otherwise. */
function write(deps: Deps, response: HttpResponse, options: ApiOptions, page: number): void {
  const out = deps.io.stdout;
  if (options.include) {
    if (page > 1) out.write('\n');
    out.write(`HTTP ${response.status}\n`);
    for (const [name, value] of Object.entries(response.headers)) {
      for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) out.write(`${sanitize(name)}: ${sanitize(one)}\n`);
    }
    out.write('\n');
  }
  const text = response.text;
  if (text === '') return;
  const json = isJson(text);
  if (deps.io.stdoutIsTTY && !deps.jq) {
    // Text keeps its lines; each loses what a terminal would act on.
    const shown = json ? prettyJson(text) : text.replace(/\n$/, '').split('\n').map((line) => sanitize(line)).join('\n');
    out.write(shown + '\n');
  } else if (options.paginate && json) {
    // One value a line, as received but for the line breaks between its tokens.
    out.write(text.trim().replace(/[\r\n]+/g, '') + '\n');
  } else {
    out.write(text);
  }
}

function isJson(text: string): boolean {
  try {
    scanDocument(text);
    return true;
  } catch (error) {
    if (error instanceof JsonSyntaxError) return false;
    throw error;
  }
}


/** Whether the key this run sends is CRAWL_API_KEY's (a 401 then says so). */
function keyFromEnvironment(deps: Deps): boolean {
  // Only the environment is looked at: whichever store holds the profile's key, that one loses to it.
  return (deps.env.CRAWL_API_KEY ?? '').trim() !== '';
}
