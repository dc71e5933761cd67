// `job pages` as a process, for what only a process shows: a real pipe whose reader leaves after
// one line (`| head -1`), and the peak memory (maxRSS) of an export. The same logic in this
// process: test/commands/job/pages.test.ts (stdout failing with EPIPE) and test/commands/job/pages-limits.test.ts (the caps).
import { shellQuote } from '../../src/text/shell.js';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ndjson, runCli, tempDir } from '../support/harness.js';
import { BIN, cleanEnv } from '../support/spawn.js';
import { startPagesServer, type PagesServer } from '../support/pages-server.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { needs } from '../support/tools.js';

const MiB = 1024 * 1024;

let fx: SandboxFixture;
let svc: PagesServer;
let out: { dir: string; cleanup: () => void };
beforeAll(async () => {
  fx = await sandboxFixture();
  // `{}` objects, 16 MiB of them: the body that costs a parser the most for its size.
  const n = Math.floor((16 * MiB - '{"pages":['.length - '],"next":null}'.length) / 3);
  const body = Buffer.concat([Buffer.from('{"pages":['), Buffer.from('{},'.repeat(n - 1) + '{}'), Buffer.from('],"next":null}')]);
  svc = await startPagesServer({ 'batch-16mb-empties': { pages: () => ({ body }) } });
  out = tempDir('crawl-pages-process-');
});
afterAll(async () => {
  out.cleanup();
  await svc.close();
  await fx.close();
});

describe('job pages in a process', () => {
  it.concurrent('`| head -1`: one line, nothing on stderr, exit 0 (pipefail), and the export stops', needs('bash'), async ({ expect }) => {
    const pageRequests = (): number => fx.sandbox.requests.filter((r) => r.url.startsWith('/api/crawl/demo-huge/pages')).length;
    const child = spawn('bash', ['-c', `set -o pipefail; ${shellQuote(process.execPath)} ${shellQuote(BIN)} job pages demo-huge | head -1`], { env: cleanEnv(fx.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(ndjson(stdout).map((record) => Number(/\/page\/(\d+)$/.exec((record as { url: string }).url)?.[1]))).toEqual([1]);
    // Stopped after a handful of the thousand batches.
    expect(pageRequests()).toBeLessThan(10);
  });

  it.concurrent('16 MiB of empty objects (5.6 million records) is never parsed into objects: peak memory stays low', async ({ expect }) => {
    const report = join(out.dir, 'rss.cjs');
    const rss = join(out.dir, 'rss.txt');
    writeFileSync(report, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(rss)}, String(process.resourceUsage().maxRSS)));\n`);
    const r = await runCli(['job', 'pages', 'batch-16mb-empties', '--output', '/dev/null'], {
      process: true,
      env: { ...svc.env, NODE_OPTIONS: `--require ${report}` },
      timeoutMs: 120_000,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // Parsed, this body takes about 580 MB; scanned, about 110 MB.
    expect(Number(readFileSync(rss, 'utf8')) / 1024).toBeLessThan(300);
  });
});
