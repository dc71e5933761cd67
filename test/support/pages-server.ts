// A small service for `job pages` tests whose answers are scripted per job: the job body, and each
// GET of its pages (by how many came before, and by the query). It records every request, so a
// test can assert what was (not) asked for, and can leave a request unanswered (a hang).
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ExpectStatic } from 'vitest';
import { tempDir } from './harness.js';
import { everyLineJson } from './local-faults.js';
import { listenOnLoopback } from './loopback.js';

export interface Answer {
  status?: number;
  /**
   * The body. Pieces made as they are sent (so a body larger than any cap is never all in memory)
   * go chunked; an array of pieces (one buffer of padding sent many times costs its memory once)
   * goes with their total as its Content-Length, unless `chunked`.
   */
  body?: string | Buffer | Iterable<Buffer>;
  /** Send the body chunked, with no Content-Length. */
  chunked?: boolean;
  /**
   * Send only the headers, with this Content-Length, and never the body (the connection stays
   * open until the client or the server closes it): what a client that judges a body by its
   * announced length sees, without the bytes; one that waits for them hangs.
   */
  announce?: number;
  /** Never answer (the connection stays open until the server closes). */
  hang?: boolean;
  headers?: Record<string, string>;
}

export interface ScriptedJob {
  /** GET /api/crawl/:id; default: a completed job of 500 pages, no inline pages. `n` counts from 0. */
  job?: (n: number) => Answer;
  /** GET /api/crawl/:id/pages; `n` counts the job's pages requests from 0. */
  pages?: (query: URLSearchParams, n: number, origin: string) => Answer;
}

export interface Seen {
  method: string;
  /** Raw path and query, as received. */
  url: string;
  authorization: string | undefined;
}

export interface PagesServer {
  /** Base URL without a trailing slash (plus `basePath` if one was given). */
  url: string;
  origin: string;
  seen: Seen[];
  env: Record<string, string>;
  close(): Promise<void>;
}

export const KEY = 'crk_pages_test_key_0123456789abcdef';

export function completedJob(id: string, pagesTotal = 500, inline: string | null = null): Answer {
  const job = { id, url: 'https://example.com/', status: 'completed', pagesTotal, pagesFinished: pagesTotal, creditsUsed: pagesTotal, createdAt: '2026-01-01T00:00:00Z' };
  return { body: `{"success":true,"job":${JSON.stringify(job)},"pages":${inline ?? 'null'}}` };
}

/** `{"url":"https://example.com/page/<n>"}` for n in first..first+count-1, as JSON text (an array's inside). */
export function records(first: number, count: number): string {
  return Array.from({ length: count }, (_, i) => `{"url":"https://example.com/page/${first + i}"}`).join(',');
}

export async function startPagesServer(jobs: Record<string, ScriptedJob>, options: { basePath?: string } = {}): Promise<PagesServer> {
  const seen: Seen[] = [];
  const counts = new Map<string, number>();
  const basePath = (options.basePath ?? '').replace(/\/$/, '');
  let origin = '';
  const count = (key: string): number => {
    const n = counts.get(key) ?? 0;
    counts.set(key, n + 1);
    return n;
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push({ method: req.method ?? 'GET', url: req.url ?? '', authorization: req.headers.authorization });
    const url = new URL(req.url ?? '/', 'http://x');
    const raw = basePath && url.pathname.startsWith(basePath + '/') ? url.pathname.slice(basePath.length) : url.pathname;
    // Routed on decoded segments, as a server would: %63rawl is crawl; an encoded slash stays in its segment.
    const path = raw.split('/').map((segment) => encodeURIComponent(safeDecode(segment))).join('/');
    const match = /^\/api\/crawl\/([^/]+)(\/pages)?$/.exec(path);
    const id = match ? safeDecode(match[1] as string) : undefined;
    const job = id === undefined ? undefined : jobs[id];
    if (!match || job === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const answer = match[2]
      ? job.pages?.(url.searchParams, count(`${id}/pages`), origin) ?? { status: 404, body: '{"error":"no pages"}' }
      : job.job?.(count(id as string)) ?? completedJob(id as string);
    send(res, answer);
  });
  const listening = await listenOnLoopback(server);
  origin = listening.url;
  const config = tempDir('crawl-pages-server-');
  return {
    url: origin + basePath,
    origin,
    seen,
    env: { CRAWL_BASE_URL: origin + basePath, CRAWL_API_KEY: KEY, CRAWL_CONFIG_DIR: config.dir },
    close: async () => {
      await listening.close();
      config.cleanup();
    },
  };
}

function send(res: ServerResponse, answer: Answer): void {
  if (answer.hang) return;
  const headers: Record<string, string | number> = { 'content-type': 'application/json', ...answer.headers };
  if (answer.announce !== undefined) {
    res.writeHead(answer.status ?? 200, { ...headers, 'content-length': answer.announce });
    // The headers go now; the body never does.
    return void res.flushHeaders();
  }
  const body = typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body ?? Buffer.alloc(0);
  if (!Buffer.isBuffer(body) && !Array.isArray(body) && !answer.chunked) throw new Error('a body made in pieces as it is sent goes chunked');
  if (Buffer.isBuffer(body) && !answer.chunked) {
    res.writeHead(answer.status ?? 200, { ...headers, 'content-length': body.length });
    return void res.end(body);
  }
  const length = Array.isArray(body) && !answer.chunked ? body.reduce((sum: number, piece: Buffer) => sum + piece.length, 0) : undefined;
  res.writeHead(answer.status ?? 200, length === undefined ? headers : { ...headers, 'content-length': length });
  // Chunked: in pieces, so the client cannot know the size before it has read past any cap.
  const pieces = Buffer.isBuffer(body) ? inPieces(body, 1024 * 1024) : body[Symbol.iterator]();
  let closed = false;
  const pump = (): void => {
    for (let next = pieces.next(); !closed; next = pieces.next()) {
      if (next.done) return void res.end();
      if (!res.write(next.value)) return void res.once('drain', pump);
    }
  };
  res.on('close', () => (closed = true));
  pump();
}

function* inPieces(body: Buffer, size: number): Generator<Buffer> {
  for (let offset = 0; offset < body.length; offset += size) yield body.subarray(offset, offset + size);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * `job pages --output <file>` ended by a signal partway through a job of `total` pages: the file
 * holds the first N records, each line whole and in order (1 <= N < total), and stderr says so,
 * in the command's own words (not the forced exit's).
 */
export function expectInterruptedExport(expect: ExpectStatic, file: string, total: number, stderr: string): void {
  const lines = everyLineJson(readFileSync(file, 'utf8'));
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.length).toBeLessThan(total);
  const pageNumbers = lines.map((r) => Number(/\/page\/(\d+)$/.exec((r as { url: string }).url)?.[1]));
  expect(pageNumbers).toEqual(Array.from({ length: lines.length }, (_, i) => i + 1));
  expect(stderr).toBe(`crawl: interrupted: ${file} holds the first ${lines.length.toLocaleString('en-US')} records, each line whole\n`);
}
