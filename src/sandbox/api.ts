// The service's own routes (/api/...), after authentication. Routing works on the raw path,
// split on '/' before any decoding, so an id holding an encoded '/' stays one segment.
import { failure, json, parseJson, isPlainObject, rawJson, type Reply, type Target } from './http.js';
import type { JobStore } from './jobs.js';
import { listView, MAX_KEY_NAME, type KeyStore } from './keys.js';
import { decodeCursor, DEFAULT_LIMIT, MAX_LIMIT, renderBatch } from './pages.js';

export interface ApiContext {
  jobs: JobStore;
  keys: KeyStore;
  /** The sandbox's own origin, for absolute next-page links. */
  origin: string;
}

const KEY_WARNING = 'This key will not be shown again. Store it securely.';

export function handleApi(ctx: ApiContext, method: string, target: Target, body: string): Reply {
  const segments = target.pathname.split('/').slice(1);
  const [api, resource, rawId, sub, ...rest] = segments;
  if (api !== 'api' || rest.length > 0) return notFound(method, target);

  if (resource === 'keys' && rawId === undefined) {
    if (method === 'GET') return json(200, { success: true, keys: ctx.keys.active().map(listView) });
    if (method === 'POST') return createKey(ctx.keys, body);
    return notAllowed(method, ['GET', 'POST']);
  }
  if (rawId === undefined || rawId === '') return notFound(method, target);
  const id = decodeSegment(rawId);
  if (id === null) return failure(400, `Malformed percent-encoding in path segment: ${rawId}`);

  if (resource === 'keys' && sub === undefined) {
    if (method !== 'DELETE') return notAllowed(method, ['DELETE']);
    return ctx.keys.revoke(id) ? json(200, { success: true, id, revoked: true }) : failure(404, `Key not found: ${id}`);
  }
  if (resource === 'crawl' && sub === undefined) {
    if (method === 'GET') return getJob(ctx.jobs, id);
    if (method === 'DELETE') return cancelJob(ctx.jobs, id);
    return notAllowed(method, ['GET', 'DELETE']);
  }
  if (resource === 'crawl' && sub === 'pages') {
    if (method !== 'GET') return notAllowed(method, ['GET']);
    return getPages(ctx, id, target.search);
  }
  return notFound(method, target);
}

export function notFound(method: string, target: Target): Reply {
  return failure(404, `Not found: ${method} ${target.pathname}`);
}

function notAllowed(method: string, allowed: string[]): Reply {
  return failure(405, `Method ${method} not allowed; use ${allowed.join(' or ')}`, { allow: allowed.join(', ') });
}

function decodeSegment(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

function createKey(keys: KeyStore, body: string): Reply {
  const parsed = parseJson(body);
  if (!parsed.ok) return failure(400, 'Invalid JSON body');
  const name = isPlainObject(parsed.value) ? parsed.value.name : undefined;
  if (typeof name !== 'string' || name.trim() === '') return failure(400, 'name is required');
  if (name.length > MAX_KEY_NAME) return failure(400, `name must be at most ${MAX_KEY_NAME} characters`);
  const entry = keys.create(name);
  return json(201, { success: true, key: entry.key, prefix: entry.keyPrefix, name: entry.name, warning: KEY_WARNING });
}

function getJob(jobs: JobStore, id: string): Reply {
  const found = jobs.poll(id);
  if (!found) return failure(404, `Job not found: ${id}`);
  // Built as text so the inline pages are the same bytes as the pages endpoint's records.
  const pages = found.inlinePages === null ? 'null' : `[${found.inlinePages}]`;
  return rawJson(200, `{"success":true,"job":${JSON.stringify(found.job)},"pages":${pages}}`);
}

function cancelJob(jobs: JobStore, id: string): Reply {
  const result = jobs.cancel(id);
  switch (result.kind) {
    case 'missing':
      return failure(404, `Job not found: ${id}`);
    case 'conflict':
      return failure(409, `Job ${id} is already ${result.status} and cannot be cancelled`);
    case 'accepted':
      return result.response === 'message'
        ? json(202, { success: true, message: 'Cancellation requested' })
        : json(200, { success: true, job: result.job });
  }
}

function getPages(ctx: ApiContext, id: string, search: string): Reply {
  const source = ctx.jobs.pageSource(id);
  if (!source) return failure(404, `Job not found: ${id}`);
  const params = new URLSearchParams(search);

  const limitText = params.get('limit') ?? '';
  let limit = DEFAULT_LIMIT;
  if (limitText !== '') {
    if (!/^\d{1,9}$/.test(limitText) || Number(limitText) < 1) {
      return failure(400, `Invalid limit: ${limitText} (expected an integer from 1 to ${MAX_LIMIT})`);
    }
    // Larger limits are capped rather than refused, like most paginated APIs.
    limit = Math.min(Number(limitText), MAX_LIMIT);
  }

  const cursor = params.get('cursor') ?? '';
  let offset = 0;
  if (cursor !== '') {
    const decoded = decodeCursor(cursor);
    if (decoded === null || decoded > source.available) return failure(400, `Invalid cursor: ${cursor}`);
    offset = decoded;
  }

  return rawJson(
    200,
    renderBatch({
      jobId: source.job.id,
      jobUrl: source.job.url,
      shape: source.shape,
      perBatch: source.perBatch,
      available: source.available,
      offset,
      limit,
      origin: ctx.origin,
    }),
  );
}
