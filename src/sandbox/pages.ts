// Page records are generated from their index, never stored: a job of a million pages costs
// nothing until it is read, and a batch is built as one JSON string without JSON.stringify per
// record, so streaming every page of a huge job stays cheap.
import type { PagesShape } from './types.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export type Shape = Required<PagesShape>;
export const DEFAULT_SHAPE: Shape = { records: 'pages', next: 'next', link: 'cursor' };

/** Returns a function that renders page n (1-based) of a job crawled from jobUrl as JSON text. */
export function pageRenderer(jobUrl: string): (n: number) => string {
  const base = jobUrl.endsWith('/') ? jobUrl : jobUrl + '/';
  // Escaped once per batch; the per-record work is plain concatenation.
  const escaped = JSON.stringify(base).slice(1, -1);
  return (n) =>
    `{"url":"${escaped}page/${n}","title":"Page ${n}","statusCode":200,"depth":${n === 1 ? 0 : 1 + (n % 3)},` +
    `"markdown":"# Page ${n}\\n\\nContent of page ${n}."}`;
}

/** Records first..first+count-1 as the inside of a JSON array. */
export function renderRange(jobUrl: string, first: number, count: number): string {
  const render = pageRenderer(jobUrl);
  const parts = new Array<string>(count);
  for (let i = 0; i < count; i++) parts[i] = render(first + i);
  return parts.join(',');
}

export function encodeCursor(offset: number): string {
  return Buffer.from(String(offset), 'utf8').toString('base64url');
}

/** The offset, or null when the cursor is not one this sandbox issued. */
export function decodeCursor(cursor: string): number | null {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^(0|[1-9]\d{0,15})$/.test(text) || encodeCursor(Number(text)) !== cursor) return null;
  return Number(text);
}

export interface BatchRequest {
  jobId: string;
  jobUrl: string;
  shape: Shape;
  /** Number of finished pages readable now. */
  available: number;
  offset: number;
  /** The limit asked for: its links carry it on. */
  limit: number;
  /** The most records a batch holds (pagesPerBatch), if fewer than the limit. */
  perBatch?: number | undefined;
  /** The sandbox's own origin, for link: 'url'. */
  origin: string;
}

export function renderBatch(batch: BatchRequest): string {
  const count = Math.max(0, Math.min(batch.limit, batch.perBatch ?? Infinity, batch.available - batch.offset));
  const end = batch.offset + count;
  const next = end < batch.available ? nextLink(batch, end) : null;
  return (
    `{"success":true,"${batch.shape.records}":[${renderRange(batch.jobUrl, batch.offset + 1, count)}],` +
    `"${batch.shape.next}":${next === null ? 'null' : JSON.stringify(next)}}`
  );
}

function nextLink(batch: BatchRequest, offset: number): string {
  const cursor = encodeCursor(offset);
  if (batch.shape.link === 'cursor') return cursor;
  const path = `/api/crawl/${encodeURIComponent(batch.jobId)}/pages?cursor=${cursor}&limit=${batch.limit}`;
  return batch.shape.link === 'path' ? path : batch.origin + path;
}
