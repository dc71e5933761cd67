// Bounds on what `job pages` (and any command) may cost:
// the size caps of a response body (a pages batch 32 MiB, a parsed document 8 MiB, an error body
// 1 MiB), exactly at and just past each, announced or streamed; the memory a batch of empty
// objects costs (a process's peak memory: test/process/pages.test.ts); and --wait
// --max-wait honoured from the start, while the first answer hangs too.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, waitFor } from '../../support/harness.js';
import { completedJob, type PagesServer, type ScriptedJob, startPagesServer } from '../../support/pages-server.js';
import { clockWatching, fakeClock } from '../../support/fake-clock.js';

const MiB = 1024 * 1024;
const BATCH_CAP = 32 * MiB;
const DOCUMENT_CAP = 8 * MiB;

/**
 * One MiB of a byte, made once: the padding of every big body below is this buffer sent again and
 * again, so a 32 MiB body touches a few MiB of memory, not 32 (and is not built again per request).
 */
const fillers = new Map<number, Buffer>();
const filler = (byte: number): Buffer => fillers.get(byte) ?? fillers.set(byte, Buffer.alloc(MiB, byte)).get(byte) as Buffer;

/** `head`, then `byte` (white space by default), then `tail`: exactly `size` bytes, in pieces. */
function padded(head: string, size: number, tail = '', byte = 0x20): Buffer[] {
  const [first, last] = [Buffer.from(head), Buffer.from(tail)];
  const pieces: Buffer[] = [first];
  let left = size - first.length - last.length;
  // A head and tail longer than the size would make a body of another size than the test says.
  if (left < 0) throw new Error(`padded: ${first.length + last.length} bytes of head and tail do not fit in ${size}`);
  for (; left >= MiB; left -= MiB) pieces.push(filler(byte));
  pieces.push(filler(byte).subarray(0, left), last);
  // An empty piece would end a chunked body early.
  return pieces.filter((piece) => piece.length > 0);
}

/**
 * A pages batch of `count` records of about 4 KiB, padded with white space after the document to
 * exactly `size` bytes: the cap counts bytes, whatever they hold, and a few records keep the export
 * (and the check of it) from costing more than reading the batch.
 */
function batchOfSize(size: number, count: number): { body: Buffer[]; count: number } {
  const pad = 'x'.repeat(4000);
  const records = Array.from({ length: count }, (_, i) => `{"url":"https://example.com/page/${i + 1}","pad":"${pad}"}`);
  return { body: padded(`{"pages":[${records.join(',')}],"next":null}`, size), count };
}

/**
 * `{}` objects, `size` bytes of them (with `head` and `tail`): the body that costs a parser the
 * most for its size. Made piece by piece as it is sent: the client refuses it long before the end.
 */
function* emptyObjects(size: number, head: string, tail: string): Generator<Buffer> {
  const n = Math.floor((size - head.length - tail.length) / 3);
  const perPiece = 256 * 1024; // objects: 768 KiB a piece
  const piece = Buffer.from('{},'.repeat(perPiece));
  yield Buffer.from(head);
  let left = n;
  for (; left > perPiece; left -= perPiece) yield piece;
  yield Buffer.from('{},'.repeat(left - 1) + '{}' + tail);
}

/** A job body of exactly `size` bytes (inline pages padded with white space). */
function jobOfSize(id: string, size: number): Buffer[] {
  const base = completedJob(id, 1, '[{"url":"https://example.com/page/1"}]').body as string;
  return padded(base.slice(0, -1), size, '}');
}

/** Made on the first request for it, once: not for every run that imports this file. */
let atCapBody: ReturnType<typeof batchOfSize> | undefined;
const atCap = (): ReturnType<typeof batchOfSize> => (atCapBody ??= batchOfSize(BATCH_CAP, 1000));
const FIFTY_SEVEN_MB = 57 * 1000 * 1000;

// Past a cap, "announced" sends the headers with a Content-Length and never the body: a client
// that waited for the body, rather than refusing it by its length, would hang. "Streamed" sends
// the body chunked, without a length, so the client has to count.
const JOBS: Record<string, ScriptedJob> = {
  'batch-at-cap': { pages: () => ({ body: atCap().body }) },
  'batch-over-cap': { pages: () => ({ announce: BATCH_CAP + 1 }) },
  'batch-over-cap-streamed': { pages: () => ({ body: [...atCap().body, Buffer.from(' ')], chunked: true }) },
  'batch-57mb-empties': { pages: () => ({ announce: FIFTY_SEVEN_MB }) },
  'batch-57mb-empties-streamed': { pages: () => ({ body: emptyObjects(FIFTY_SEVEN_MB, '{"pages":[', '],"next":null}'), chunked: true }) },
  'doc-at-cap': { job: () => ({ body: jobOfSize('doc-at-cap', DOCUMENT_CAP) }) },
  'doc-over-cap': { job: () => ({ body: jobOfSize('doc-over-cap', DOCUMENT_CAP + 1), chunked: true }) },
  'doc-57mb-empties': { job: () => ({ announce: FIFTY_SEVEN_MB }) },
  'error-body-503': { job: () => ({ status: 503, body: padded('', 2 * MiB) }) },
  'error-body-404': { job: () => ({ status: 404, body: padded('{"error":"', 2 * MiB + 12, '"}', 0x78), chunked: true }) },
  'error-body-small': { job: () => ({ status: 404, body: `{"error":"${'y'.repeat(MiB - 20)}"}` }) },
  // --wait: the first answer never comes.
  'hung-first': { job: () => ({ hang: true }) },
  // --wait: running twice, then every poll hangs.
  'hung-later': {
    job: (n) => (n < 2 ? { body: '{"success":true,"job":{"id":"hung-later","status":"running","pagesTotal":10,"pagesFinished":3},"pages":null}' } : { hang: true }),
  },
};

let svc: PagesServer;
let out: { dir: string; cleanup: () => void };
beforeAll(async () => {
  svc = await startPagesServer(JOBS);
  out = tempDir('crawl-limits-');
});
afterAll(async () => {
  out.cleanup();
  await svc.close();
});

// Vitest's own bound, as the runs' (timeoutMs): a hang guard for bodies of tens of megabytes on a
// loaded machine, not a measure.
const BIG_BODIES = { timeout: 60_000 };

describe('a batch of pages: 32 MiB at most', BIG_BODIES, () => {
  it('exactly 32 MiB: every record written', async () => {
    const file = join(out.dir, 'at-cap.ndjson');
    const r = await runCli(['job', 'pages', 'batch-at-cap', '--output', file], { env: svc.env, timeoutMs: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const { count } = atCap();
    expect(lines).toHaveLength(count);
    expect(JSON.parse(lines[count - 1] as string)).toMatchObject({ url: `https://example.com/page/${count}` });
  });

  it.concurrent.for([
    ['one byte more, announced', 'batch-over-cap'],
    ['one byte more, streamed without a length', 'batch-over-cap-streamed'],
    ['57 MB of empty objects, announced', 'batch-57mb-empties'],
    ['57 MB of empty objects, streamed', 'batch-57mb-empties-streamed'],
  ])('%s: refused, exit 1, the cap named, nothing written, the file there left as it was', async ([, id], { expect }) => {
    const file = join(out.dir, `${id}.ndjson`);
    writeFileSync(file, 'the old content\n');
    const r = await runCli(['job', 'pages', id as string, '--output', file], { env: svc.env, timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `crawl: response to GET /api/crawl/${id}/pages (HTTP 200) is larger than 32 MiB; refusing to read it (nothing was written: ${file} was left as it was)\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe('the old content\n');
    // Refused, not retried: one request.
    expect(svc.seen.filter((s) => s.url.startsWith(`/api/crawl/${id}/pages`))).toHaveLength(1);
  });
});

describe('a parsed document (the job, the key list): 8 MiB at most', BIG_BODIES, () => {
  it.concurrent('exactly 8 MiB: read and shown', async ({ expect }) => {
    const r = await runCli(['job', 'status', 'doc-at-cap', '--json'], { env: svc.env });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(DOCUMENT_CAP + 1);
  });

  it.concurrent.for([
    ['one byte more, streamed', 'doc-over-cap', ['job', 'status', 'doc-over-cap']],
    ['57 MB of empty objects, status', 'doc-57mb-empties', ['job', 'status', 'doc-57mb-empties']],
    ['57 MB of empty objects, pages', 'doc-57mb-empties', ['job', 'pages', 'doc-57mb-empties']],
  ] as const)('%s: refused, exit 1, the cap named', async ([, id, argv], { expect }) => {
    const r = await runCli([...argv], { env: svc.env, timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`crawl: response to GET /api/crawl/${id} (HTTP 200) is larger than 8 MiB; refusing to read it\n`);
  });
});

describe('an error body: read up to 1 MiB, past that the status stands alone', () => {
  it.concurrent('a 503 with 2 MiB of body: not read, still retried, exit 1', async ({ expect }) => {
    const r = await runCli(['job', 'status', 'error-body-503'], { env: svc.env, timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('crawl: GET /api/crawl/error-body-503 failed: HTTP 503 (its body is larger than 1 MiB and was not read)\n');
    expect(svc.seen.filter((s) => s.url === '/api/crawl/error-body-503')).toHaveLength(4);
  });

  it.concurrent('a 404 with 2 MiB of body, streamed: still exit 3', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'error-body-404', '--json'], { env: svc.env });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { message: 'GET /api/crawl/error-body-404 failed: HTTP 404 (its body is larger than 1 MiB and was not read)', httpStatus: 404, exitCode: 3 },
    });
  });

  it.concurrent('just under 1 MiB: the server\'s message is read (and shortened)', async ({ expect }) => {
    const r = await runCli(['job', 'status', 'error-body-small'], { env: svc.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^crawl: GET \/api\/crawl\/error-body-small failed: HTTP 404: y{200,}…\n/);
  });
});

describe('--wait --max-wait counts from the start', () => {
  // The hung request never ends by itself (its 30 s --timeout is on the run's fake clock too, and
  // later than --max-wait): once the server has it, the test moves the clock on to --max-wait, and
  // the run must end there.
  const requestsOf = (url: string): number => svc.seen.filter((s) => s.url === url).length;

  it.concurrent('the first answer never comes: exit 5 (the job was never read) at --max-wait, not after --timeout and its retries', async ({ expect }) => {
    const file = join(out.dir, 'hung-first.ndjson');
    // When each pause began (virtual ms): a retry of the first request would pause before --max-wait.
    const pausesAt: number[] = [];
    const clock = clockWatching((_ms, _n, c) => pausesAt.push(c.elapsed()));
    const run = runCli(['job', 'pages', 'hung-first', '--wait', '--max-wait', '1', '--output', file], { env: svc.env, clock, timeoutMs: 60_000 });
    await waitFor(() => requestsOf('/api/crawl/hung-first') >= 1, 10_000, 'the first request');
    // Not a moment before --max-wait: the run is still waiting for its answer.
    await clock.advance(999);
    expect(await Promise.race([run.then(() => 'ended'), new Promise((resolve) => setImmediate(resolve, 'waiting'))])).toBe('waiting');
    await clock.advance(1);
    const r = await run;
    // Nothing is known of the job: not "still running" (7) but the network's code.
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('crawl: gave up waiting: the job could not be read yet\nhint: check the base URL and that the service is up, or run the command again later\n');
    // At --max-wait (1 s of virtual time, above), not after --timeout and its retries: no pause,
    // one request (the abandoned one ends as the run closes its client, and is not tried again).
    expect(pausesAt).toEqual([]);
    expect(clock.pendingDeadlines()).toBe(0);
    expect(requestsOf('/api/crawl/hung-first')).toBe(1);
    // The file it would have written is not left behind.
    expect(existsSync(file)).toBe(false);
  });

  it.concurrent('a later poll hangs: exit 7 at --max-wait, saying where the job was', async ({ expect }) => {
    const clock = fakeClock();
    const run = runCli(['job', 'pages', 'hung-later', '--wait', '--interval', '0.5', '--max-wait', '1.5'], { env: svc.env, clock, timeoutMs: 60_000 });
    // Two answers (running, 3/10), then the third request hangs after one 0.5 s interval.
    await waitFor(() => requestsOf('/api/crawl/hung-later') >= 3, 10_000, 'the poll that hangs');
    await clock.advance(1000);
    const r = await run;
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/crawl: gave up waiting: the job is still running, 3\/10 pages \(30%\)\nhint: raise --max-wait/);
    // At --max-wait exactly, counted from the start: one interval, then the deadline over the hung poll.
    expect(clock.sleeps).toEqual([500]);
    expect(clock.elapsed()).toBe(1500);
    expect(requestsOf('/api/crawl/hung-later')).toBeGreaterThanOrEqual(3);
  });
});
