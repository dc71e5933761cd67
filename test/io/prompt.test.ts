// The small edges a newcomer hits at a terminal: Ctrl-C at a prompt or while `pages
// --wait --output` waits, TERM=dumb, numbers grouped for people, timeouts that count their
// attempts, `auth login --with-key` saying what it waits for, `config set` of a plain-http remote
// URL, the export's progress line within the width. In this process, on memory terminals.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/string-width.js';
import type { TestStreams } from '../../src/io/test-streams.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { clockWatching } from '../support/fake-clock.js';
import { crawl, interrupt, runCli, tempDir, waitFor } from '../support/harness.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  fx = await sandboxFixture();
  tmp = tempDir('crawl-edges-');
  fx.sandbox.addJob({ id: 'big', status: 'completed', pagesTotal: 1_000_000, creditsUsed: 1_234_567 });
  fx.sandbox.addJob({ id: 'still-running', status: 'running', pagesTotal: 10, pagesFinished: 2 });
  fx.sandbox.addJob({ id: 'thousands', status: 'completed', pagesTotal: 2_500 });
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

const ESC = '\u001b';

describe('Ctrl-C and Ctrl-D at a prompt end the prompt line', () => {
  it('keys revoke, Ctrl-C at the confirmation: exit 130, the line ended, nothing revoked', async () => {
    const key = fx.sandbox.addKey('prompt-victim');
    const r = await runCli(['keys', 'revoke', key.id], {
      env: fx.env,
      tty: true,
      onSpawn: (child, out) => void waitFor(() => out.stdout().includes('[y/N] '), 10_000, 'the prompt').then(() => child.kill('SIGINT')),
    });
    expect(r.code).toBe(130);
    expect(r.stdout.endsWith('[y/N] \n')).toBe(true);
    expect(fx.sandbox.requests.some((q) => q.method === 'DELETE' && q.url.endsWith(key.id))).toBe(false);
  });

  it('Ctrl-D (the end of input) at the confirmation: the refusal starts a line of its own', async () => {
    const key = fx.sandbox.addKey('prompt-eof');
    let streams!: TestStreams;
    const run = crawl(['keys', 'revoke', key.id], { env: fx.env, tty: true, columns: 120, onStreams: (s) => (streams = s) });
    await waitFor(() => streams.outputText().includes('[y/N] '), 10_000, 'the prompt');
    // What the terminal turns Ctrl-D into: the end of the input.
    (streams.stdin as PassThrough).end();
    expect((await run).code).toBe(2);
    expect(streams.outputText()).toMatch(/\[y\/N\] \ncrawl: not confirmed: nothing was revoked\n$/);
  });

  it('the hidden key prompt, ^C typed: exit 130, the line ended once', async () => {
    const r = await runCli(['auth', 'login'], {
      env: { ...fx.env, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: join(tmp.dir, 'hidden') },
      tty: true,
      onSpawn: (child, out) => void waitFor(() => out.stdout().includes('Paste your API key: '), 10_000, 'the prompt').then(() => child.stdin?.write('crk_half\u0003')),
    });
    expect(r.code).toBe(130);
    expect(r.stdout.endsWith('? Paste your API key: \n')).toBe(true);
    expect(r.stdout).not.toContain('crk_half');
  });
});

describe('Ctrl-C while `job pages --wait --output` waits for the job', () => {
  it('says that nothing was written, exit 130, no file left', async () => {
    const file = join(tmp.dir, 'waited.ndjson');
    const controller = new AbortController();
    const r = await crawl(['job', 'pages', 'still-running', '--wait', '--output', file], {
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

describe('TERM=dumb: no cursor movement, no escapes', () => {
  it('job watch: plain progress lines instead of the live line', async () => {
    fx.sandbox.addJob({ id: 'dumb-watch', status: 'running', pagesTotal: 4, advance: { perPoll: 2 } });
    const r = await crawl(['job', 'watch', 'dumb-watch'], { env: { ...fx.env, TERM: 'dumb' }, tty: true });
    expect(r.code).toBe(0);
    expect(r.output).not.toContain(ESC);
    expect(r.stderr).toMatch(/^\[0:00\] running 2\/4 pages \(50%\)\n\[0:02\] completed 4\/4 pages \(100%\)\n$/);
  });

  it('job pages --output: the last line only, plain; tables and fields without colour', async () => {
    const file = join(tmp.dir, 'dumb.ndjson');
    const [pages, keys, job] = await Promise.all([
      crawl(['job', 'pages', 'demo-large', '--output', file], { env: { ...fx.env, TERM: 'dumb', LANG: 'C' }, tty: true }),
      crawl(['keys', 'list'], { env: { ...fx.env, TERM: 'dumb' }, tty: true }),
      crawl(['job', 'demo-errored'], { env: { ...fx.env, TERM: 'dumb' }, tty: true }),
    ]);
    expect(pages.code).toBe(0);
    expect(pages.stderr).toBe(`Wrote ${file}: 250/250 records (100%)\n`);
    for (const r of [keys, job]) {
      expect(r.code).toBe(0);
      expect(r.output).not.toContain(ESC);
    }
  });
});

describe('numbers for people use the locale grouping on a terminal; plain and JSON keep the digits', () => {
  it.each([
    ['en_US.UTF-8', '1,000,000/1,000,000 pages (100%)', '1,234,567'],
    ['de_DE.UTF-8', '1.000.000/1.000.000 pages (100%)', '1.234.567'],
    ['C', '1,000,000/1,000,000 pages (100%)', '1,234,567'],
  ])('LANG=%s', async (lang, progress, credits) => {
    const r = await crawl(['job', 'big'], { env: { ...fx.env, LANG: lang, NO_COLOR: '1' }, tty: true });
    expect(r.stdout).toMatch(new RegExp(`^Progress +${progress.replace(/[.()]/g, '\\$&')}$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^Credits +${credits.replace(/\./g, '\\.')}$`, 'm'));
  });

  it('LC_ALL wins over LANG; plain rows and --json keep the raw numbers', async () => {
    const [all, plain, json] = await Promise.all([
      crawl(['job', 'big'], { env: { ...fx.env, LANG: 'en_US.UTF-8', LC_ALL: 'de_DE.UTF-8', NO_COLOR: '1' }, tty: true }),
      crawl(['job', 'big'], { env: { ...fx.env, LANG: 'en_US.UTF-8' } }),
      crawl(['job', 'big', '--json'], { env: { ...fx.env, LANG: 'en_US.UTF-8' }, tty: true }),
    ]);
    expect(all.stdout).toContain('1.000.000/1.000.000');
    expect(plain.stdout).toContain('pagesTotal\t1000000\n');
    expect(plain.stdout).toContain('creditsUsed\t1234567\n');
    expect(JSON.parse(json.stdout).job).toMatchObject({ pagesTotal: 1000000, creditsUsed: 1234567 });
  });
});

describe('the progress line of `job pages --output` fits the terminal', () => {
  it.each([40, 60, 100])('%i columns, a long file name: every redraw within the width', async (columns) => {
    const file = join(tmp.dir, `a-rather-long-folder-name-for-exports-${columns}`, '..', `records-of-the-thousands-job-${columns}.ndjson`);
    const r = await crawl(['job', 'pages', 'thousands', '--output', file], { env: { ...fx.env, LANG: 'en_US.UTF-8' }, tty: true, columns });
    expect(r.code).toBe(0);
    const draws = r.stderr.split('\r\u001b[2K').slice(1).map((d) => d.replace(/\r$/, '').replace(/\n?\u001b\[\?25h$/, ''));
    expect(draws.length).toBeGreaterThan(0);
    for (const draw of draws) expect(displayWidth(draw), draw).toBeLessThan(columns);
    expect(draws.at(-1)).toMatch(/^Wrote \S*json: 2,500\/2,500 records \(100%\)$/);
    if (columns < 80) expect(draws.at(-1)).toMatch(/^Wrote …/);
  });
});

describe('`auth login --with-key` on a terminal says it reads standard input', () => {
  it('on a terminal: the notice; in a pipe: none', async () => {
    const dir = join(tmp.dir, 'with-key');
    const env = { ...fx.env, CRAWL_API_KEY: undefined, CRAWL_CONFIG_DIR: dir };
    // A terminal's input ends only when the user says so: the notice is what shows meanwhile.
    const typed = await runCli(['auth', 'login', '--with-key'], {
      env,
      tty: true,
      onSpawn: (child, out) => void waitFor(() => out.stdout().includes('Reading the key'), 10_000, 'the notice').then(() => child.kill('SIGINT')),
    });
    expect(typed.code).toBe(130);
    expect(typed.stdout).toBe('Reading the key from standard input: paste it, press Enter, then Ctrl-D. It shows as you type; `crawl auth login` alone asks for it without showing it.\n\n');
    const piped = await crawl(['auth', 'login', '--with-key'], { env: { ...env, CRAWL_CONFIG_DIR: join(tmp.dir, 'with-key-2') }, input: fx.sandbox.key });
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain('Reading the key');
  });
});

describe('`config set base-url` to plain http:// on another host warns at once', () => {
  it.each([
    ['http://crawl.internal.example:8080', true],
    ['https://crawl.example.com', false],
    ['http://127.0.0.1:8787', false],
    ['http://localhost:8787', false],
  ])('%s', async (url, warns) => {
    const env = { CRAWL_CONFIG_DIR: join(tmp.dir, `set-${warns}-${url.length}`) };
    const [plain, json] = await Promise.all([
      crawl(['config', 'set', 'base-url', url], { env }),
      crawl(['config', 'set', 'base-url', url, '--json'], { env: { CRAWL_CONFIG_DIR: `${env.CRAWL_CONFIG_DIR}-json` } }),
    ]);
    expect(plain.code).toBe(0);
    expect(json.code).toBe(0);
    const warning = `commands will refuse to send the API key over plain http:// to ${new URL(url).host} unless given --allow-http: the key would cross the network in clear; use https:// if the service has it`;
    if (warns) {
      expect(plain.stderr).toContain(`crawl: warning: ${warning}\n`);
      expect(JSON.parse(json.stdout)).toEqual({ profile: 'default', key: 'base-url', value: url, warning });
    } else {
      expect(plain.stderr).not.toContain('warning');
      expect(JSON.parse(json.stdout)).not.toHaveProperty('warning');
    }
  });
});
