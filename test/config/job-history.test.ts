// The job history behind `crawl job <Tab>` (src/config/job-history.ts), in this process: what is
// kept, where, for which service, and that it never costs a command anything.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_LIMIT, readJobHistory, recordJob } from '../../src/config/job-history.js';
import type { Platform } from '../../src/platform/platform.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { crawl, tempDir } from '../support/harness.js';

/** The system these tests run on (the history's folder comes from XDG_STATE_HOME here). */
const HERE: Platform = { os: process.platform, home: '' };

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
let n = 0;
beforeAll(async () => {
  fx = await sandboxFixture();
  tmp = tempDir('crawl-history-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

/** A state folder of its own for each test. */
function state(): string {
  return join(tmp.dir, `state-${++n}`);
}

async function offered(env: Record<string, string>, words: string[]): Promise<string[]> {
  const r = await crawl(['__complete', ...words], { env: { ...fx.env, ...env } });
  return r.stdout.split('\n').filter((l) => l.endsWith('\trecent')).map((l) => l.split('\t')[0] as string);
}

describe('the job history', () => {
  it('job, watch, pages and cancel remember the id once read; a private file (0600 in a 0700 folder), the latest first', async () => {
    const env = { XDG_STATE_HOME: state() };
    fx.sandbox.addJob({ id: 'h-cancel', status: 'running', pagesTotal: 5 });
    for (const argv of [['job', 'demo-small'], ['job', 'watch', 'demo-errored'], ['job', 'pages', 'demo-small', '--limit', '1'], ['job', 'cancel', 'h-cancel'], ['job', 'demo-small']]) {
      await crawl(argv, { env: { ...fx.env, ...env } });
    }
    expect(await offered(env, ['job', 'status', ''])).toEqual(['demo-small', 'h-cancel', 'demo-errored']);
    const file = join(env.XDG_STATE_HOME, 'crawl', 'recent-jobs.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(env.XDG_STATE_HOME, 'crawl')).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, 'utf8')).not.toContain(fx.sandbox.key);
  });

  it('the file is rewritten only when the history changes: the same job again leaves it as it was', () => {
    const env = { XDG_STATE_HOME: state() };
    const file = join(env.XDG_STATE_HOME, 'crawl', 'recent-jobs.json');
    recordJob(env, HERE, 'job-a', 'http://127.0.0.1:1');
    const first = statSync(file).ino;
    recordJob(env, HERE, 'job-a', 'http://127.0.0.1:1');
    // Written whole and renamed into place: a rewrite would be another file.
    expect(statSync(file).ino).toBe(first);
    recordJob(env, HERE, 'job-b', 'http://127.0.0.1:1');
    expect(statSync(file).ino).not.toBe(first);
    expect(readJobHistory(env, HERE).map((e) => e.id)).toEqual(['job-b', 'job-a']);
  });

  it('a job that could not be read is not remembered; nor is an id a shell would split', async () => {
    const env = { XDG_STATE_HOME: state() };
    fx.sandbox.addJob({ id: 'two words', status: 'completed', pagesTotal: 1 });
    expect((await crawl(['job', 'no-such-job'], { env: { ...fx.env, ...env } })).code).toBe(3);
    expect((await crawl(['job', 'watch', 'no-such-job'], { env: { ...fx.env, ...env } })).code).toBe(3);
    expect((await crawl(['job', 'pages', 'no-such-job'], { env: { ...fx.env, ...env } })).code).toBe(3);
    expect((await crawl(['job', 'two words'], { env: { ...fx.env, ...env } })).code).toBe(0);
    expect(readJobHistory(env, HERE)).toEqual([]);
  });

  it('only the current service\'s ids are offered; the history keeps the last ' + HISTORY_LIMIT, () => {
    const env = { XDG_STATE_HOME: state() };
    for (let i = 0; i < HISTORY_LIMIT + 5; i++) recordJob(env, HERE, `job-${i}`, i % 2 === 0 ? 'http://127.0.0.1:1' : 'https://crawl.example.com');
    const kept = readJobHistory(env, HERE);
    expect(kept).toHaveLength(HISTORY_LIMIT);
    expect(kept[0]).toEqual({ id: `job-${HISTORY_LIMIT + 4}`, origin: 'http://127.0.0.1:1' });
    expect(kept.at(-1)?.id).toBe('job-5');
  });

  it('CRAWL_JOB_HISTORY=off keeps and offers nothing; a damaged file is read as empty and replaced', async () => {
    const off = { XDG_STATE_HOME: state(), CRAWL_JOB_HISTORY: 'off' };
    await crawl(['job', 'demo-small'], { env: { ...fx.env, ...off } });
    expect(() => statSync(join(off.XDG_STATE_HOME, 'crawl'))).toThrow();

    const damaged = { XDG_STATE_HOME: state() };
    mkdirSync(join(damaged.XDG_STATE_HOME, 'crawl'), { recursive: true });
    writeFileSync(join(damaged.XDG_STATE_HOME, 'crawl', 'recent-jobs.json'), '{"not": "a list"');
    expect(await offered(damaged, ['job', ''])).toEqual([]);
    expect((await crawl(['job', 'demo-small'], { env: { ...fx.env, ...damaged } })).code).toBe(0);
    expect(await offered(damaged, ['job', ''])).toEqual(['demo-small']);
  });

  it('a state folder that cannot be made (a file in its place, which stops root too): the command is unaffected', async () => {
    const env = { XDG_STATE_HOME: state() };
    mkdirSync(env.XDG_STATE_HOME, { recursive: true });
    writeFileSync(join(env.XDG_STATE_HOME, 'crawl'), 'not a folder');
    const r = await crawl(['job', 'demo-small', '--json'], { env: { ...fx.env, ...env } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ job: { id: 'demo-small' } });
    expect(readFileSync(join(env.XDG_STATE_HOME, 'crawl'), 'utf8')).toBe('not a folder');
  });
});
