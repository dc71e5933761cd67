// The help pages the launcher keeps (src/launch/help-cache.cts): a help page asked again is
// printed from the user's cache folder, the same bytes, with none of the bundle read; only from a
// private folder, only the entry made for that very line and layout; a page that cannot be written
// there is left to the CLI to report, in its words. Spawned: the launcher is what bin/crawl.js runs.
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandHelps, helpOf } from '../../src/build/help-text.js';
import { runCli, tempDir } from '../support/harness.js';
import { BIN, cleanEnv } from '../support/spawn.js';
import { needs } from '../support/tools.js';

const tmp = tempDir('crawl-help-cache-');
afterAll(() => tmp.cleanup());
let runs = 0;

/** `crawl <args>` with its own cache folder: what it printed, and whether it loaded the bundle (node:vm compiles it). */
async function help(args: string[], cache: string, options: { tty?: boolean } = {}): Promise<{ code: number | null; stdout: string; bundle: boolean }> {
  const out = join(tmp.dir, `modules-${++runs}.txt`);
  const reporter = join(tmp.dir, `report-${runs}.cjs`);
  writeFileSync(reporter, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`);
  const r = await runCli(args, { process: true, ...(options.tty ? { tty: true } : {}), env: { XDG_CACHE_HOME: cache, NODE_OPTIONS: `--require ${reporter}` } });
  return { code: r.code, stdout: r.stdout, bundle: readFileSync(out, 'utf8').split('\n').includes('NativeModule vm') };
}

const helpFolder = (cache: string): string => join(cache, 'crawl', 'help');

describe('a help page asked again', () => {
  it('comes from the cache, the same bytes as the first time and as the CLI prints it, without the bundle', async () => {
    const cache = join(tmp.dir, 'again');
    await Promise.all(
      [['job', '--help'], ['--help'], ['keys', 'rotate', '-h']].map(async (args) => {
        const first = await help(args, cache);
        const again = await help(args, cache);
        expect(first).toMatchObject({ code: 0, bundle: true });
        expect(again).toMatchObject({ code: 0, bundle: false });
        expect(again.stdout).toBe(first.stdout);
        expect(first.stdout).toBe(await helpOf(args, { columns: 80, terminal: false }));
      }),
    );
    expect(readdirSync(helpFolder(cache))).toHaveLength(3);
  });

  it('on a terminal: a page of its own, kept and taken as off one', needs('script'), async () => {
    const cache = join(tmp.dir, 'terminal');
    const piped = await help(['job', '--help'], cache);
    const first = await help(['job', '--help'], cache, { tty: true });
    const again = await help(['job', '--help'], cache, { tty: true });
    expect(piped.bundle).toBe(true);
    // The page off a terminal is not the one a terminal gets: the terminal's run loads the bundle.
    expect(first).toMatchObject({ code: 0, bundle: true });
    expect(again).toMatchObject({ code: 0, bundle: false });
    expect(again.stdout).toBe(first.stdout);
    expect(readdirSync(helpFolder(cache))).toHaveLength(2);
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
  it('a folder others may write to is not read: the CLI prints the page', async () => {
    const cache = join(tmp.dir, 'shared');
    const first = await help(['job', '--help'], cache);
    chmodSync(helpFolder(cache), 0o770);
    const again = await help(['job', '--help'], cache);
    expect(again).toMatchObject({ code: 0, bundle: true, stdout: first.stdout });
  });

  it('an entry made for another line or layout is not printed, and is made again', async () => {
    const cache = join(tmp.dir, 'other-key');
    const first = await help(['job', '--help'], cache);
    const [entry] = readdirSync(helpFolder(cache));
    const path = join(helpFolder(cache), entry ?? '');
    const kept = readFileSync(path, 'utf8');
    writeFileSync(path, kept.replace(/^[^\n]*"job","--help"\]\n/, (key) => key.replace('"job"', '"keys"')).replace('Usage:', 'Forged:'));
    const again = await help(['job', '--help'], cache);
    expect(again).toMatchObject({ code: 0, bundle: true, stdout: first.stdout });
    expect(readFileSync(path, 'utf8')).toBe(kept);
  });

  it("another build's entries are removed when a page is kept", async () => {
    const cache = join(tmp.dir, 'builds');
    mkdirSync(helpFolder(cache), { recursive: true, mode: 0o700 });
    writeFileSync(join(helpFolder(cache), '0000000000000000-00000000.txt'), 'an old build\n', { mode: 0o600 });
    await help(['job', '--help'], cache);
    const names = readdirSync(helpFolder(cache));
    expect(names).toHaveLength(1);
    expect(names[0]).not.toMatch(/^0{16}-/);
  });
});

it('a page that cannot be written (a full disk): the one line and exit code of the CLI, as without a cache', async () => {
  const cache = join(tmp.dir, 'full');
  await help(['job', '--help'], cache);
  const fd = openSync('/dev/full', 'w');
  try {
    const full = (env: Record<string, string>) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, 'job', '--help'], { env: cleanEnv(env), stdio: ['ignore', fd, 'pipe'] });
        let stderr = '';
        child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        child.on('close', (code) => resolve({ code, stderr }));
      });
    const cached = await full({ XDG_CACHE_HOME: cache });
    expect(cached).toEqual({ code: 1, stderr: 'crawl: cannot write to standard output: no space left on device (ENOSPC)\n' });
    expect(await full({ XDG_CACHE_HOME: join(tmp.dir, 'full-fresh') })).toEqual(cached);
  } finally {
    closeSync(fd);
  }
});

it('what a help page says depends on nothing a key leaves out: not the environment, the config or colour', async () => {
  const layout = { columns: 80, terminal: false };
  const { root, groups, commands } = await commandHelps(layout);
  const config = join(tmp.dir, 'config');
  mkdirSync(config, { recursive: true, mode: 0o700 });
  writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles: { ci: { 'base-url': 'https://crawl.example' } } }), { mode: 0o600 });
  const elsewhere = { CRAWL_CONFIG_DIR: config, CRAWL_PROFILE: 'ci', CRAWL_BASE_URL: 'http://127.0.0.1:9', FORCE_COLOR: '3', HOME: tmp.dir, LANG: 'de_DE.UTF-8' };
  for (const page of [{ words: [], help: root }, ...groups, ...commands]) {
    const args = [...page.words, '--help'];
    expect(await helpOf(args, layout, elsewhere)).toBe(page.help);
    // No colour: commander styles nothing, so a terminal's page differs from a pipe's by its width alone.
    expect(page.help).not.toContain('\u001b');
  }
});
