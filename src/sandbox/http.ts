// Small HTTP helpers shared by the route handlers. Handlers return a Reply value instead of
// writing to the response, so a fault such as drop-mid-body can send part of the real answer.
import type { IncomingMessage, ServerResponse } from 'node:http';

export const JSON_TYPE = 'application/json; charset=utf-8';

export interface Reply {
  status: number;
  /** Serialised body; JSON unless headers say otherwise. */
  body: string;
  headers?: Record<string, string>;
}

export function json(status: number, value: unknown, headers?: Record<string, string>): Reply {
  return { status, body: JSON.stringify(value), ...(headers ? { headers } : {}) };
}

/** A body that is already JSON text (the page batches are built as strings for speed). */
export function rawJson(status: number, body: string): Reply {
  return { status, body };
}

export function failure(status: number, error: string, headers?: Record<string, string>): Reply {
  return json(status, { success: false, error }, headers);
}

export function replyHeaders(reply: Reply, byteLength: number): Record<string, string> {
  return {
    'content-type': JSON_TYPE,
    'cache-control': 'no-store',
    ...reply.headers,
    'content-length': String(byteLength),
  };
}

/** Encodes the body once: page batches run to megabytes, and counting then encoding doubles the work. */
export function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed) return;
  const body = Buffer.from(reply.body, 'utf8');
  res.writeHead(reply.status, replyHeaders(reply, body.length));
  res.end(body);
}

export interface Target {
  /** Raw path+query as received. */
  raw: string;
  /** Raw (still percent-encoded) pathname: ids are decoded per segment, never as a whole. */
  pathname: string;
  /** Including the leading '?', or ''. */
  search: string;
}

export function splitTarget(raw: string): Target {
  const q = raw.indexOf('?');
  return q === -1
    ? { raw, pathname: raw, search: '' }
    : { raw, pathname: raw.slice(0, q), search: raw.slice(q) };
}

export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads the whole request body; null when it exceeds MAX_BODY_BYTES. */
export function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      // Keep draining after the limit so the connection stays usable for the 413.
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export type Parsed = { ok: true; value: unknown } | { ok: false };

export function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
