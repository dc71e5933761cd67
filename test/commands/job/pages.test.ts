// `job pages --output`: the counts in its progress line and in the message of an interrupt are
// one format, the locale's grouping (`1,000` under en_US, `1.000` under de_DE).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, waitFor } from '../../helpers/cli.js';
import { records, startPagesServer, type PagesServer, type ScriptedJob } from '../../helpers/pages-server.js';

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
