// `job pages`: inline vs paginated, exact counts and order across batch boundaries, --limit
// (and no batch fetched beyond it), failures midway (records kept, count in the message),
// retried batches, a closed stdout, --output (its progress line within the terminal's width), and
// jobs still running (with and without --wait, and Ctrl-C while it waits).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../../src/io/string-width.js';
import { clockWatching } from '../../support/fake-clock.js';
import { crawl, interrupt, ndjson, runCli, tempDir, waitFor } from '../../support/harness.js';
import { type PagesServer, records, type ScriptedJob, startPagesServer } from '../../support/pages-server.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { wordsOf } from '../../support/shell-words.js';

let fx: SandboxFixture;
let out: { dir: string; cleanup: () => void };
/** Files of the --jq runs into an existing file, one each. */
let jqRuns = 0;
beforeAll(async () => {
  fx = await sandboxFixture();
  out = tempDir('crawl-pages-');
});
afterAll(async () => {
  out.cleanup();
  await fx.close();
});

/** Page numbers of NDJSON records, from their url (`.../page/<n>`), in output order. */
function pageNumbers(text: string): number[] {
  return ndjson(text).map((record) => {
    const url = (record as { url: string }).url;
    const match = /\/page\/(\d+)$/.exec(url);
    if (!match) throw new Error(`not a page record: ${url}`);
    return Number(match[1]);
  });
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

function pageRequests(id: string): URL[] {
  return fx.sandbox.requests
    .filter((r) => r.url.startsWith(`/api/crawl/${id}/pages`))
    .map((r) => new URL(r.url, 'http://x'));
}

describe('counts and order', () => {
  it.concurrent.for([99, 100])('%i pages, completed: the inline array, no /pages request', async (n, { expect }) => {
    fx.sandbox.addJob({ id: `inline-${n}`, status: 'completed', pagesTotal: n });
    const r = await runCli(['job', 'pages', `inline-${n}`], { env: fx.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(pageNumbers(r.stdout)).toEqual(range(1, n));
    expect(pageRequests(`inline-${n}`)).toHaveLength(0);
  });

  it.concurrent.for([
    [101, 1],
    [2345, 3],
  ] as const)('%i pages: every record once, in order, through /pages in %i batch(es) of up to 1000', async ([n, batches], { expect }) => {
    fx.sandbox.addJob({ id: `paged-${n}`, status: 'completed', pagesTotal: n });
    const r = await runCli(['job', 'pages', `paged-${n}`], { env: fx.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(pageNumbers(r.stdout)).toEqual(range(1, n));
    const requests = pageRequests(`paged-${n}`);
    expect(requests).toHaveLength(batches);
    expect(requests.every((u) => u.searchParams.get('limit') === '1000')).toBe(true);
  });

  it.concurrent('each record is one line of compact JSON, as the service sent it', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'demo-small'], { env: fx.env });
    const lines = r.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(42);
    const first = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(lines[0]).toBe(JSON.stringify(first));
    expect(first).toMatchObject({ url: 'https://example.com/page/1', title: 'Page 1' });
  });

  it.concurrent('errored and cancelled jobs: the pages they have, through the same endpoint, exit 0', async ({ expect }) => {
    const errored = await runCli(['job', 'pages', 'demo-errored'], { env: fx.env });
    expect(errored.code).toBe(0);
    expect(pageNumbers(errored.stdout)).toEqual(range(1, 17));
    const cancelled = await runCli(['job', 'pages', 'demo-cancelled'], { env: fx.env });
    expect(cancelled.code).toBe(0);
    expect(pageNumbers(cancelled.stdout)).toEqual(range(1, 30));
    expect(pageRequests('demo-cancelled').length).toBeGreaterThan(0);
  });
});

describe('--limit', () => {
  it.concurrent('across a batch boundary: exactly n records, and no batch beyond what they need', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'limit-across', status: 'completed', pagesTotal: 2345 });
    const r = await runCli(['job', 'pages', 'limit-across', '--limit', '1500'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 1500));
    const requests = pageRequests('limit-across');
    expect(requests.map((u) => u.searchParams.get('limit'))).toEqual(['1000', '500']);
  });

  it.concurrent('a small n asks for a small batch', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'limit-small', status: 'completed', pagesTotal: 5000 });
    const r = await runCli(['job', 'pages', 'limit-small', '--limit', '3'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(pageNumbers(r.stdout)).toEqual([1, 2, 3]);
    expect(pageRequests('limit-small').map((u) => u.searchParams.get('limit'))).toEqual(['3']);
  });

  it.concurrent('on inline pages, and exactly at a boundary', async ({ expect }) => {
    const inline = await runCli(['job', 'pages', 'demo-small', '--limit', '5'], { env: fx.env });
    expect(pageNumbers(inline.stdout)).toEqual(range(1, 5));
    fx.sandbox.addJob({ id: 'limit-edge', status: 'completed', pagesTotal: 3000 });
    const edge = await runCli(['job', 'pages', 'limit-edge', '--limit', '2000'], { env: fx.env });
    expect(pageNumbers(edge.stdout)).toEqual(range(1, 2000));
    expect(pageRequests('limit-edge')).toHaveLength(2);
  });

  it.concurrent('0 or not a number is a usage error', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'demo-small', '--limit', '0'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^crawl: invalid --limit "0"/);
    expect(r.stdout).toBe('');
  });
});

describe('failures midway', () => {
  it('a 500 in batch 4: the records of batches 1-3 stay in the file, the message says how many', async () => {
    fx.sandbox.addJob({ id: 'fail-late', status: 'completed', pagesTotal: 5000 });
    fx.sandbox.inject({ path: '^/api/crawl/fail-late/pages', kind: 'status', status: 500, skip: 3 });
    const file = join(out.dir, 'fail-late.ndjson');
    const r = await runCli(['job', 'pages', 'fail-late', '--output', file], { env: fx.env });
    fx.sandbox.clearFaults();
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `crawl: GET /api/crawl/fail-late/pages failed: HTTP 500: Injected fault (wrote 3,000 records to ${file} before the failure)\n`,
    );
    expect(pageNumbers(readFileSync(file, 'utf8'))).toEqual(range(1, 3000));
  });

  it('to stdout: the same, with the failure\'s own exit code (404 -> 3) and --json error', async () => {
    fx.sandbox.addJob({ id: 'fail-stdout', status: 'completed', pagesTotal: 2500 });
    fx.sandbox.inject({ path: '^/api/crawl/fail-stdout/pages', kind: 'status', status: 404, skip: 1, body: '{"error":"gone"}' });
    const r = await runCli(['job', 'pages', 'fail-stdout', '--json'], { env: fx.env });
    fx.sandbox.clearFaults();
    expect(r.code).toBe(3);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 1000));
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        message: 'GET /api/crawl/fail-stdout/pages failed: HTTP 404: gone (wrote 1,000 records before the failure)',
        httpStatus: 404,
        exitCode: 3,
      },
    });
  });

  it('a 500 on the first batch leaves an existing file as it was, and says so', async () => {
    fx.sandbox.addJob({ id: 'fail-first', status: 'completed', pagesTotal: 250 });
    const file = join(out.dir, 'fail-first.ndjson');
    const good = await runCli(['job', 'pages', 'fail-first', '--output', file], { env: fx.env });
    expect(good.code).toBe(0);
    const before = readFileSync(file, 'utf8');
    expect(pageNumbers(before)).toEqual(range(1, 250));
    fx.sandbox.inject({ path: '^/api/crawl/fail-first/pages', kind: 'status', status: 500 });
    const r = await runCli(['job', 'pages', 'fail-first', '--output', file], { env: fx.env });
    // A file the export made is left empty: there is nothing of the user's in it to keep.
    const fresh = join(out.dir, 'fail-first-fresh.ndjson');
    const made = await runCli(['job', 'pages', 'fail-first', '--output', fresh], { env: fx.env });
    fx.sandbox.clearFaults();
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`crawl: GET /api/crawl/fail-first/pages failed: HTTP 500: Injected fault (nothing was written: ${file} was left as it was)\n`);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(made.code).toBe(1);
    expect(made.stderr).toBe(`crawl: GET /api/crawl/fail-first/pages failed: HTTP 500: Injected fault (wrote 0 records to ${fresh} before the failure)\n`);
    expect(readFileSync(fresh, 'utf8')).toBe('');
  });

  it('once records are written to an existing file, a later failure keeps them (and only them)', async () => {
    fx.sandbox.addJob({ id: 'fail-second', status: 'completed', pagesTotal: 2500 });
    const file = join(out.dir, 'fail-second.ndjson');
    writeFileSync(file, 'old content that is longer than nothing\n'.repeat(10_000));
    fx.sandbox.inject({ path: '^/api/crawl/fail-second/pages', kind: 'status', status: 500, skip: 1 });
    const r = await runCli(['job', 'pages', 'fail-second', '--output', file], { env: fx.env });
    fx.sandbox.clearFaults();
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `crawl: GET /api/crawl/fail-second/pages failed: HTTP 500: Injected fault (wrote 1,000 records to ${file} before the failure)\n`,
    );
    expect(pageNumbers(readFileSync(file, 'utf8'))).toEqual(range(1, 1000));
  });

  it('a 503 in a batch is retried: every record exactly once', async () => {
    fx.sandbox.addJob({ id: 'retry-503', status: 'completed', pagesTotal: 2345 });
    fx.sandbox.inject({ path: '^/api/crawl/retry-503/pages', kind: 'status', status: 503, skip: 1, times: 1 });
    const r = await runCli(['job', 'pages', 'retry-503'], { env: fx.env });
    fx.sandbox.clearFaults();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 2345));
    const requests = pageRequests('retry-503');
    expect(requests).toHaveLength(4);
    // The retry asked for the very batch that failed.
    expect(requests[2]?.search).toBe(requests[1]?.search);
    // After one backoff (attempt 1: 125-250 ms), on the fake clock.
    expect(r.clock?.sleeps).toHaveLength(1);
    expect(r.clock?.sleeps[0]).toBeGreaterThanOrEqual(125);
    expect(r.clock?.sleeps[0]).toBeLessThanOrEqual(250);
  });

  it('a dropped connection mid-body in a late batch is retried too', async () => {
    fx.sandbox.addJob({ id: 'retry-drop', status: 'completed', pagesTotal: 3500 });
    fx.sandbox.inject({ path: '^/api/crawl/retry-drop/pages', kind: 'drop-mid-body', skip: 3, times: 1 });
    const r = await runCli(['job', 'pages', 'retry-drop'], { env: fx.env });
    fx.sandbox.clearFaults();
    expect(r.code).toBe(0);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 3500));
  });
});

describe('stdout closed early', () => {
  // The reader goes away after the first line (EPIPE on the next write); the same through a real
  // `| head -1` is in test/process/pages.test.ts.
  it('`| head -1`: one line, nothing on stderr, exit 0, and the export stops', async () => {
    const firstLine = (await runCli(['job', 'pages', 'demo-huge', '--limit', '1'], { env: fx.env })).stdout;
    const before = pageRequests('demo-huge').length;
    const r = await crawl(['job', 'pages', 'demo-huge'], { env: fx.env, stdoutFails: { code: 'EPIPE', afterBytes: Buffer.byteLength(firstLine) } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(pageNumbers(r.stdout)).toEqual([1]);
    // Stopped after a handful of the thousand batches.
    expect(pageRequests('demo-huge').length - before).toBeLessThan(10);
  });
});

describe('--output', () => {
  it.concurrent('writes the file, nothing on stdout; replaces what the file held', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'to-file', status: 'completed', pagesTotal: 1200 });
    const file = join(out.dir, 'to-file.ndjson');
    writeFileSync(file, 'old content that is longer than nothing\n'.repeat(100));
    const r = await runCli(['job', 'pages', 'to-file', '--output', file], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('');
    expect(pageNumbers(readFileSync(file, 'utf8'))).toEqual(range(1, 1200));
  });

  it.concurrent('a job with no pages empties an existing file: the export holds no records', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'no-pages', status: 'completed', pagesTotal: 0 });
    const file = join(out.dir, 'no-pages.ndjson');
    writeFileSync(file, 'old\n');
    const r = await runCli(['job', 'pages', 'no-pages', '--output', file], { env: fx.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it.concurrent('--jq stopping before it prints anything leaves an existing file as it was', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'jq-silent-first', status: 'completed', pagesTotal: 2500 });
    /** `job pages <id> --output <a file holding "precious"> --jq <filter>`: the run, and what the file holds after it. */
    const exported = async (id: string, filter: string): Promise<{ code: number | null; stderr: string; held: string }> => {
      const path = join(out.dir, `jq-${String(++jqRuns)}.ndjson`);
      writeFileSync(path, 'precious\n');
      const r = await runCli(['job', 'pages', id, '--output', path, '--jq', filter], { env: fx.env });
      return { code: r.code, stderr: r.stderr, held: readFileSync(path, 'utf8') };
    };
    // Inline pages, and the first batch of a paginated job.
    const error = await exported('demo-small', 'error("boom")');
    expect(error).toEqual({ code: 1, stderr: expect.stringContaining('jq: error: boom'), held: 'precious\n' });
    expect(await exported('demo-large', '"stop" | halt_error(3)')).toEqual({ code: 3, stderr: 'stop\n', held: 'precious\n' });
    // A first batch the filter prints nothing for empties nothing: the error in the second stops
    // the export before any byte.
    const late = await exported('jq-silent-first', 'if (.url | endswith("/1500")) then error("late") else empty end');
    expect(late).toEqual({ code: 1, stderr: expect.stringContaining('jq: error: late'), held: 'precious\n' });
    // What the filter printed before its error replaces the file.
    const cut = await exported('demo-small', 'if (.url | endswith("/2")) then error("at 2") else .url end');
    expect(cut).toEqual({ code: 1, stderr: expect.stringContaining('jq: error: at 2'), held: expect.stringMatching(/^\S+\/1\n$/) });
    // `halt` (exit 0) ends the export well: the file holds what it printed, nothing.
    expect(await exported('demo-small', 'halt')).toEqual({ code: 0, stderr: '', held: '' });
  });

  it.concurrent('on a terminal, a progress line on stderr: records written of pagesTotal', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'to-file-tty', status: 'completed', pagesTotal: 2345 });
    const file = join(out.dir, 'tty.ndjson');
    const r = await runCli(['job', 'pages', 'to-file-tty', '--output', file], { env: { ...fx.env, LANG: 'en_US.UTF-8' }, tty: true });
    expect(r.code).toBe(0);
    // Counts for people: grouped as the locale does it.
    expect(r.stdout).toContain(`Wrote ${file}: 2,345/2,345 records (100%)`);
    expect(r.stdout).not.toContain('"url"');
    expect(pageNumbers(readFileSync(file, 'utf8'))).toHaveLength(2345);
  });

  it.concurrent('a missing folder: one line, exit 1, before any request', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'no-folder', status: 'completed', pagesTotal: 10 });
    const file = join(out.dir, 'missing', 'out.ndjson');
    const r = await runCli(['job', 'pages', 'no-folder', '--output', file], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`crawl: cannot write to ${file}: no such file or folder (ENOENT)\n`);
    expect(fx.sandbox.requests.some((q) => q.url.startsWith('/api/crawl/no-folder'))).toBe(false);
  });

  it.concurrent('a read-only file: one line, exit 1', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'read-only', status: 'completed', pagesTotal: 10 });
    // A 0444 file refuses the open (before any request); root may open anything, so as root the
    // test uses /proc/version, which refuses the write instead.
    const root = process.getuid?.() === 0;
    const readOnly = root ? '/proc/version' : join(out.dir, 'read-only.ndjson');
    if (!root) {
      writeFileSync(readOnly, '');
      chmodSync(readOnly, 0o444);
    }
    const r = await runCli(['job', 'pages', 'read-only', '--output', readOnly], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const reason = root ? 'input/output error (EIO)' : 'permission denied (EACCES)';
    expect(r.stderr).toBe(`crawl: cannot write to ${readOnly}: ${reason}\n`);
    if (!root) expect(fx.sandbox.requests.some((q) => q.url.startsWith('/api/crawl/read-only'))).toBe(false);
  });

  it.concurrent('a folder: one line, exit 1, before any request', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'to-folder', status: 'completed', pagesTotal: 10 });
    const r = await runCli(['job', 'pages', 'to-folder', '--output', out.dir], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`crawl: cannot write to ${out.dir}: it is a folder (EISDIR)\n`);
    expect(fx.sandbox.requests.some((q) => q.url.startsWith('/api/crawl/to-folder'))).toBe(false);
  });

  it.concurrent('/dev/full: a clear one-line error, exit 1', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'demo-large', '--output', '/dev/full'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('crawl: cannot write to /dev/full: no space left on device (ENOSPC)\n');
  });

  it.concurrent('a job that cannot be read leaves an existing file as it was, and creates none', async ({ expect }) => {
    const existing = join(out.dir, 'keep.ndjson');
    writeFileSync(existing, 'keep me\n');
    const r = await runCli(['job', 'pages', 'no-such-job', '--output', existing], { env: fx.env });
    expect(r.code).toBe(3);
    expect(readFileSync(existing, 'utf8')).toBe('keep me\n');
    const fresh = join(out.dir, 'fresh.ndjson');
    const again = await runCli(['job', 'pages', 'no-such-job', '--output', fresh], { env: fx.env });
    expect(again.code).toBe(3);
    expect(existsSync(fresh)).toBe(false);
  });
});

describe('the progress line of `job pages --output` fits the terminal', () => {
  beforeAll(() => {
    fx.sandbox.addJob({ id: 'thousands', status: 'completed', pagesTotal: 2_500 });
  });

  it.each([40, 60, 100])('%i columns, a long file name: every redraw within the width', async (columns) => {
    const file = join(out.dir, `a-rather-long-folder-name-for-exports-${columns}`, '..', `records-of-the-thousands-job-${columns}.ndjson`);
    const r = await crawl(['job', 'pages', 'thousands', '--output', file], { env: { ...fx.env, LANG: 'en_US.UTF-8' }, tty: true, columns });
    expect(r.code).toBe(0);
    const draws = r.stderr.split('\r\u001b[2K').slice(1).map((d) => d.replace(/\r$/, '').replace(/\n?\u001b\[\?25h$/, ''));
    expect(draws.length).toBeGreaterThan(0);
    for (const draw of draws) expect(displayWidth(draw), draw).toBeLessThan(columns);
    expect(draws.at(-1)).toMatch(/^Wrote \S*json: 2,500\/2,500 records \(100%\)$/);
    if (columns < 80) expect(draws.at(-1)).toMatch(/^Wrote …/);
  });
});

describe('jobs not finished', () => {
  it.concurrent('running or pending without --wait: exit 2 with a hint, nothing read', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'still-running', status: 'running', pagesTotal: 300, pagesFinished: 120 });
    const r = await runCli(['job', 'pages', 'still-running'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'crawl: job still-running is still running, 120/300 pages (40%): its pages are exported once it has finished\n' +
        'hint: wait for it with `crawl job pages still-running --wait`\n',
    );
    expect(pageRequests('still-running')).toHaveLength(0);
    const pending = await runCli(['job', 'pages', 'demo-pending'], { env: fx.env });
    expect(pending.code).toBe(2);
    expect(pending.stderr).toMatch(/^crawl: job demo-pending is still pending/);
  });

  it.concurrent('the hint repeats the flags given, quoted, and pasted it writes where this run would have', async ({ expect }) => {
    // Each GET of the job moves it 10 pages: 10 at the refused run; the pasted one reads 20, then
    // its watch 30 and, after one --interval, 40 (completed).
    fx.sandbox.addJob({ id: 'hint-flags', status: 'running', pagesTotal: 40, advance: { perPoll: 10 } });
    const file = join(out.dir, "hint's folder", 'x y.ndjson');
    mkdirSync(dirname(file), { recursive: true });
    const given = ['--output', file, '--limit', '5', '--interval', '1.5'];
    const r = await runCli(['--allow-http', '--base-url', fx.sandbox.url, 'job', 'pages', 'hint-flags', ...given], { env: fx.env });
    expect(r.code).toBe(2);
    const hint = /^hint: wait for it with `(.*)`$/m.exec(r.stderr)?.[1] ?? '';
    const words = await wordsOf(hint);
    expect(words).toEqual(['crawl', '--base-url', fx.sandbox.url, '--allow-http', 'job', 'pages', 'hint-flags', ...given, '--wait']);
    expect(r.stderr).not.toContain(fx.env.CRAWL_API_KEY);
    expect(existsSync(file)).toBe(false);
    const pasted = await runCli(words.slice(1), { env: fx.env });
    expect(pasted.code).toBe(0);
    expect(pasted.stdout).toBe('');
    expect(pageNumbers(readFileSync(file, 'utf8'))).toEqual(range(1, 5));
    expect(pasted.clock?.sleeps).toEqual([1500]);
  });

  it.concurrent('the hint repeats --jq (or --json), quoted, and pasted it writes what the filter prints', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'hint-jq', status: 'running', pagesTotal: 40, advance: { perPoll: 10 } });
    const file = join(out.dir, 'hint-jq.txt');
    const filter = '.url | "page: \\(.)"';
    // The hint is shown at a terminal: with --json off one, stderr gets the JSON error line only.
    const hinted = async (args: string[]): Promise<string[]> => {
      const r = await crawl(['job', 'pages', 'hint-jq', ...args], { env: fx.env, tty: { stderr: true } });
      expect(r.code).toBe(2);
      return wordsOf(/^hint: wait for it with `(.*)`$/m.exec(r.stderr)?.[1] ?? '');
    };
    const words = await hinted(['--jq', filter, '--output', file]);
    expect(words).toEqual(['crawl', 'job', 'pages', 'hint-jq', '--output', file, '--jq', filter, '--wait']);
    // --jq implies --json: one is enough.
    expect(await hinted(['--json', '--jq', filter, '--output', file])).toEqual(words);
    expect(await hinted(['--json'])).toEqual(['crawl', 'job', 'pages', 'hint-jq', '--json', '--wait']);
    const pasted = await runCli(words.slice(1), { env: fx.env });
    expect(pasted.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^(page: \S+\/page\/\d+\n){40}$/);
  });

  it.concurrent('--wait watches first (progress on stderr), then exports every page', async ({ expect }) => {
    // Each GET of the job moves it 50 pages: the first (before watching) sees 50, the watch 100 on.
    fx.sandbox.addJob({ id: 'wait-then', status: 'running', pagesTotal: 200, advance: { perPoll: 50 } });
    const r = await runCli(['job', 'pages', 'wait-then', '--wait', '--interval', '0.5'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 200));
    // Polls at 100, 150 and 200 pages, --interval between them.
    expect(r.clock?.sleeps).toEqual([500, 500]);
    expect(r.stderr.replace(/^\[\d+:\d\d\] /gm, '')).toBe(
      'running 100/200 pages (50%)\nrunning 150/200 pages (75%)\ncompleted 200/200 pages (100%)\n',
    );
  });

  it.concurrent('--wait on a job that ends errored exports what it has, exit 0', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'wait-errored', status: 'running', pagesTotal: 40, advance: { perPoll: 20, endStatus: 'errored' } });
    const r = await runCli(['job', 'pages', 'wait-errored', '--wait', '--interval', '0.5'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(pageNumbers(r.stdout)).toEqual(range(1, 40));
    // The watch's first poll found it errored: no pause.
    expect(r.clock?.sleeps).toEqual([]);
  });

  it.concurrent('--wait --max-wait elapsed: exit 7, nothing on stdout', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'never-done', status: 'running', pagesTotal: 10 });
    const file = join(out.dir, 'never.ndjson');
    const r = await runCli(['job', 'pages', 'never-done', '--wait', '--interval', '0.5', '--max-wait', '20', '--output', file], {
      env: fx.env,
    });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/crawl: gave up waiting: the job is still running/);
    expect(existsSync(file)).toBe(false);
    // Polled every 0.5 s until 20 s of (virtual) time had passed.
    expect(r.clock?.sleeps).toEqual(Array(40).fill(500));
    expect(r.clock?.elapsed()).toBe(20000);
  });

  it.concurrent('--max-wait without --wait is a usage error', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'demo-small', '--max-wait', '3'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-wait works with --wait only/);
  });

  it('Ctrl-C while --wait --output waits for the job: says that nothing was written, exit 130, no file left', async () => {
    fx.sandbox.addJob({ id: 'waited-running', status: 'running', pagesTotal: 10, pagesFinished: 2 });
    const file = join(out.dir, 'waited.ndjson');
    const controller = new AbortController();
    const r = await crawl(['job', 'pages', 'waited-running', '--wait', '--output', file], {
      env: fx.env,
      tty: true,
      signal: controller.signal,
      clock: clockWatching(() => interrupt(controller)),
    });
    expect(r.code).toBe(130);
    expect(r.stderr.endsWith(`crawl: interrupted before the export began: nothing was written to ${file}\n`)).toBe(true);
    expect(existsSync(file)).toBe(false);
  });
});

describe('the CI example of `job pages --help` shows what it says', () => {
  const EXAMPLE = 'crawl job pages "$JOB_ID" --wait --max-wait 3600 --output pages.ndjson';

  /** The example's comment in the help, its lines joined. */
  async function comment(): Promise<string> {
    const help = (await crawl(['job', 'pages', '--help'], { env: fx.env })).stdout.split('\n');
    const at = help.findIndex((line) => line.trim() === `$ ${EXAMPLE}`);
    expect(at).toBeGreaterThan(0);
    let first = at;
    while (help[first - 1]?.trim().startsWith('# ')) first--;
    return help.slice(first, at).map((line) => line.trim().slice(2)).join(' ');
  }

  /** The example run against a job that takes two polls to finish, with stderr a terminal or not. */
  async function runExample(id: string, tty: boolean): Promise<{ code: number; stderr: string; file: string }> {
    fx.sandbox.addJob({ id, status: 'running', pagesTotal: 300, advance: { perPoll: 100 } });
    const file = join(out.dir, `${id}.ndjson`);
    const argv = EXAMPLE.split(' ').slice(1).map((word) => (word === '"$JOB_ID"' ? id : word === 'pages.ndjson' ? file : word));
    const r = await crawl(argv, { env: { ...fx.env, TERM: 'dumb' }, tty });
    return { code: r.code, stderr: r.stderr, file };
  }

  it('off a terminal: a line per change of the job and no summary', async () => {
    expect(await comment()).toContain('off one, a line per change of the job and no summary: the exit code says how it went');
    const r = await runExample('ci-example-pipe', false);
    expect(r.code).toBe(0);
    expect(r.stderr.replace(/^\[\d+:\d\d\] /gm, '')).toBe('running 200/300 pages (67%)\ncompleted 300/300 pages (100%)\n');
    expect(pageNumbers(readFileSync(r.file, 'utf8'))).toEqual(range(1, 300));
  });

  it('on a terminal (TERM=dumb too): progress, and a last "Wrote" line', async () => {
    expect(await comment()).toContain('on a terminal, progress and a last "Wrote" line');
    const r = await runExample('ci-example-tty', true);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/completed 300\/300 pages \(100%\)\n/);
    expect(r.stderr.endsWith(`Wrote ${r.file}: 300/300 records (100%)\n`)).toBe(true);
  });
});

describe("counts in the locale's grouping", () => {
  // `job pages --output`: the counts in its progress line and in the message of an interrupt are
  // one format, the locale's grouping (`1,000` under en_US, `1.000` under de_DE).
  const BATCH = 1000;
  /** 5,000 pages whose first batch comes at once and whose later batches never come. */
  const stalling: ScriptedJob = {
    job: () => ({ body: '{"success":true,"job":{"id":"j","status":"completed","pagesTotal":5000},"pages":null}' }),
    pages: (q, n) => {
      if (n >= 1) return { hang: true };
      const offset = Number(q.get('cursor') ?? 0);
      return { body: `{"pages":[${records(offset + 1, BATCH)}],"next":"${offset + BATCH}"}` };
    },
  };

  let svc: PagesServer;
  let tmp: { dir: string; cleanup: () => void };
  beforeAll(async () => {
    svc = await startPagesServer({ 'count-en': stalling, 'count-de': stalling });
    tmp = tempDir('crawl-pages-count-');
  });
  afterAll(async () => {
    tmp.cleanup();
    await svc.close();
  });

  const secondBatch = (id: string) => (): boolean => svc.seen.filter((q) => q.url.startsWith(`/api/crawl/${id}/pages`)).length >= 2;

  describe('the interrupt message counts as the progress line does', () => {
    it.each([
      ['count-en', 'en_US.UTF-8', '1,000', '5,000'],
      ['count-de', 'de_DE.UTF-8', '1.000', '5.000'],
    ])('%s (%s)', async (id, lang, written, total) => {
      const file = join(tmp.dir, `${id}.ndjson`);
      const r = await runCli(['job', 'pages', id, '--output', file], {
        env: { ...svc.env, LANG: lang },
        tty: true,
        onSpawn: (child, out) => {
          void waitFor(() => secondBatch(id)() && out.stdout().includes(`${written}/`), 10_000, 'the progress line').then(() => child.kill('SIGINT'));
        },
      });
      expect(r.code).toBe(130);
      expect(r.stdout).toContain(`${written}/${total} records`);
      expect(r.stdout).toContain(`crawl: interrupted: ${file} holds the first ${written} records, each line whole`);
    });
  });
});
