// The help pages printed without the bundle (bin/crawl.js, and the launcher's start() in
// src/launch/load-bundle.cts): off a terminal, every command's page as the build made it and
// packed it; on a terminal, or for a line the build made no page for, the page it printed before,
// kept in the user's cache folder (src/launch/help-cache.cts): only from a private folder, only the
// entry made for that very line and layout. A page that cannot be written is left to the CLI to
// report, in its words. Spawned: what bin/crawl.js does is what is tested.
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli as runInProcess } from '../../src/app/run-cli.js';
import { commandHelps, helpOf } from '../../src/build/help-text.js';
import { testStreams } from '../../src/io/test-streams.js';
import { realClock } from '../../src/platform/clock.js';
import { tempDir } from '../support/harness.js';
import { runIntoFullDisk, runNotingBundle } from '../support/bundle-runs.js';
import { packedFiles } from '../support/pack.js';
import { ROOT } from '../support/spawn.js';
import { needs } from '../support/tools.js';

const tmp = tempDir('crawl-help-cache-');
afterAll(() => tmp.cleanup());

/** `crawl <args>` with its own cache folder: what it printed, and whether it loaded the bundle. */
const help = (args: string[], cache: string, options: { tty?: boolean } = {}) => runNotingBundle(args, cache, tmp.dir, options);

const helpFolder = (cache: string): string => join(cache, 'crawl', 'help');

describe('off a terminal: the pages the build made', () => {
  it('every command\'s page is packed, as the CLI prints it to a pipe (with --help and with -h)', async () => {
    const { root, groups, commands } = await commandHelps({ columns: 80, terminal: false });
    const packed = packedFiles();
    const pages = [{ words: [], help: root }, ...groups, ...commands];
    expect(pages.length).toBeGreaterThan(20);
    for (const page of pages) {
      expect(packed.get(`help/${page.words.join(' ')}`), page.words.join(' ')).toBe(page.help);
      expect(await helpOf([...page.words, '-h'], { columns: 80, terminal: false })).toBe(page.help);
    }
    expect([...packed.keys()].filter((name) => name.startsWith('help/'))).toHaveLength(pages.length);
    // bin/crawl.js finds a page with one read of the pack's head: its build line and index fit in it.
    const pack = readFileSync(join(ROOT, 'dist', 'bundle', 'bundle.pack'));
    expect(pack.indexOf(10, pack.indexOf(10) + 1)).toBeLessThan(16384);
  });

  it('printed on the first run already, without the bundle, and nothing kept', async () => {
    const cache = join(tmp.dir, 'made');
    await Promise.all(
      [['job', '--help'], ['--help'], ['keys', 'rotate', '-h']].map(async (args) => {
        const run = await help(args, cache);
        expect(run).toMatchObject({ code: 0, bundle: false });
        expect(run.stdout).toBe(await helpOf(args, { columns: 80, terminal: false }));
      }),
    );
    expect(existsSync(helpFolder(cache))).toBe(false);
  });
});

describe('a page the build did not make, asked again', () => {
  it('a line with a job id in it: kept the first time, then printed from the cache, the same bytes, without the bundle', async () => {
    const cache = join(tmp.dir, 'again');
    const args = ['job', 'demo-small', '--help'];
    const first = await help(args, cache);
    const again = await help(args, cache);
    expect(first).toMatchObject({ code: 0, bundle: true });
    expect(again).toMatchObject({ code: 0, bundle: false, stdout: first.stdout });
    expect(first.stdout).toBe(await helpOf(args, { columns: 80, terminal: false }));
    expect(readdirSync(helpFolder(cache))).toHaveLength(1);
  });

  it('on a terminal: kept the first time, then printed from the cache', needs('script'), async () => {
    const cache = join(tmp.dir, 'terminal');
    const first = await help(['job', '--help'], cache, { tty: true });
    const again = await help(['job', '--help'], cache, { tty: true });
    expect(first).toMatchObject({ code: 0, bundle: true });
    expect(again).toMatchObject({ code: 0, bundle: false });
    expect(again.stdout).toBe(first.stdout);
    expect(readdirSync(helpFolder(cache))).toHaveLength(1);
  });

  it('only a line of command words ending in --help or -h: a flag, a value or a topic runs the CLI', async () => {
    const cache = join(tmp.dir, 'lines');
    await Promise.all(
      [['job', '--help', '--json'], ['--json', 'job', '--help'], ['help', 'job'], ['job', 'Demo', '--help'], ['a', 'b', 'c', 'd', '--help']].map(async (args) => {
        await help(args, cache);
        expect(await help(args, cache)).toMatchObject({ bundle: true });
      }),
    );
  });
});

describe('what the cache is trusted with', () => {
  const line = ['job', 'demo-small', '--help'];

  it('a folder others may write to is not read: the CLI prints the page', async () => {
    const cache = join(tmp.dir, 'shared');
    const first = await help(line, cache);
    chmodSync(helpFolder(cache), 0o770);
    const again = await help(line, cache);
    expect(again).toMatchObject({ code: 0, bundle: true, stdout: first.stdout });
  });

  it('an entry made for another line or layout is not printed, and is made again', async () => {
    const cache = join(tmp.dir, 'other-key');
    const first = await help(line, cache);
    const [entry] = readdirSync(helpFolder(cache));
    const path = join(helpFolder(cache), entry ?? '');
    const kept = readFileSync(path, 'utf8');
    writeFileSync(path, kept.replace(/^[^\n]*"demo-small","--help"\]\n/, (key) => key.replace('"demo-small"', '"demo-large"')).replace('Usage:', 'Forged:'));
    const again = await help(line, cache);
    expect(again).toMatchObject({ code: 0, bundle: true, stdout: first.stdout });
    expect(readFileSync(path, 'utf8')).toBe(kept);
  });

  it("another build's entries are removed when a page is kept", async () => {
    const cache = join(tmp.dir, 'builds');
    mkdirSync(helpFolder(cache), { recursive: true, mode: 0o700 });
    writeFileSync(join(helpFolder(cache), '0000000000000000-00000000.txt'), 'an old build\n', { mode: 0o600 });
    await help(line, cache);
    const names = readdirSync(helpFolder(cache));
    expect(names).toHaveLength(1);
    expect(names[0]).not.toMatch(/^0{16}-/);
  });
});

it('a page that cannot be written (a full disk): the one line and exit code of the CLI, for a packed page or a kept one alike', async () => {
  const cache = join(tmp.dir, 'full');
  await help(['job', 'demo-small', '--help'], cache);
  const said = { code: 1, stderr: 'crawl: cannot write to standard output: no space left on device (ENOSPC)\n' };
  expect(await runIntoFullDisk(['job', '--help'], { XDG_CACHE_HOME: cache })).toEqual(said);
  expect(await runIntoFullDisk(['job', 'demo-small', '--help'], { XDG_CACHE_HOME: cache })).toEqual(said);
});

it('what a help page says depends on nothing its key leaves out: not the environment, the config, colour or the system', async () => {
  const layout = { columns: 80, terminal: false };
  const { root, groups, commands } = await commandHelps(layout);
  const config = join(tmp.dir, 'config');
  mkdirSync(config, { recursive: true, mode: 0o700 });
  writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles: { ci: { 'base-url': 'https://crawl.example' } } }), { mode: 0o600 });
  const elsewhere = { CRAWL_CONFIG_DIR: config, CRAWL_PROFILE: 'ci', CRAWL_BASE_URL: 'http://127.0.0.1:9', FORCE_COLOR: '3', HOME: tmp.dir, LANG: 'de_DE.UTF-8' };
  for (const page of [{ words: [], help: root }, ...groups, ...commands]) {
    const args = [...page.words, '--help'];
    expect(await helpOf(args, layout, elsewhere)).toBe(page.help);
    // The pages the build packs are printed on every system.
    for (const [os, home] of [['win32', 'C:\\Users\\ada'], ['darwin', '/Users/ada']] as const) {
      const streams = testStreams({ columns: 80, tty: { stdout: false } });
      await runInProcess(args, { env: {}, streams, clock: realClock, nodeVersion: process.versions.node, platform: { os, home } });
      expect(streams.stdoutText(), `${os}: ${args.join(' ')}`).toBe(page.help);
    }
    // No colour: commander styles nothing, so a terminal's page differs from a pipe's by its width alone.
    expect(page.help).not.toContain('\u001b');
  }
});
