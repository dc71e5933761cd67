// Hints that name a command, in a run on Windows (the platform given, on this system): an id or a
// profile that is not safe bare in cmd and PowerShell is named (`<id>`), never spliced; a safe one
// is written as it is, and one in letters beyond ASCII in double quotes. The same runs on Linux and macOS, and under Git Bash, quote for POSIX shells.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Platform } from '../../../src/platform/platform.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { crawl } from '../../support/harness.js';

let fx: SandboxFixture;
beforeEach(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterEach(() => fx.close());

// No home: nothing of these runs is written anywhere (the job history needs one on Windows).
const windows: Platform = { os: 'win32', home: '' };
const mac: Platform = { os: 'darwin', home: '' };

/** The command between the backticks after `lead`. */
function suggested(text: string, lead: string): string {
  const line = text.split('\n').find((l) => l.includes(lead)) ?? '';
  const start = line.indexOf('`', line.indexOf(lead));
  expect(start, `no suggestion after "${lead}" in:\n${text}`).toBeGreaterThanOrEqual(0);
  return line.slice(start + 1, line.indexOf('`', start + 1));
}

describe('job ids in hints', () => {
  it.each(['x&calc', 'a|b', '%PATH%', 'it"s'])('Windows: %j is named <id>', async (id) => {
    fx.sandbox.addJob({ id, status: 'completed', pagesTotal: 1 });
    const r = await crawl(['job', 'cancel', '--', id], { env: fx.env, platform: windows });
    expect(r.code).toBe(1);
    expect(suggested(r.stderr, 'see where it stands with')).toBe('crawl job status <id>');
    expect(r.stderr).not.toContain(`job status ${id}`);
  });

  it('Windows: a safe id is written as it is', async () => {
    fx.sandbox.addJob({ id: 'job_42', status: 'running', pagesTotal: 100, pagesFinished: 5 });
    const r = await crawl(['job', 'pages', 'job_42'], { env: fx.env, platform: windows });
    expect(r.code).toBe(2);
    expect(suggested(r.stderr, 'wait for it with')).toBe('crawl job pages job_42 --wait');
  });

  it('Windows under Git Bash or MSYS2 (MSYSTEM set): quoted for bash, as on Linux', async () => {
    fx.sandbox.addJob({ id: 'x&calc', status: 'completed', pagesTotal: 1 });
    const r = await crawl(['job', 'cancel', '--', 'x&calc'], { env: { ...fx.env, MSYSTEM: 'MINGW64' }, platform: windows });
    expect(suggested(r.stderr, 'see where it stands with')).toBe("crawl job status 'x&calc'");
  });

  it('Windows where the shell cannot be told (TERM set, no MSYSTEM): a word safe in no one of them is named', async () => {
    fx.sandbox.addJob({ id: 'x&calc', status: 'completed', pagesTotal: 1 });
    const r = await crawl(['job', 'cancel', '--', 'x&calc'], { env: { ...fx.env, TERM: 'xterm' }, platform: windows });
    expect(suggested(r.stderr, 'see where it stands with')).toBe('crawl job status <id>');
  });

  it('macOS: quoted for its shells, as on Linux', async () => {
    fx.sandbox.addJob({ id: 'x&calc', status: 'completed', pagesTotal: 1 });
    const r = await crawl(['job', 'cancel', '--', 'x&calc'], { env: fx.env, platform: mac });
    expect(suggested(r.stderr, 'see where it stands with')).toBe("crawl job status 'x&calc'");
  });
});

describe('letters beyond ASCII in hints: quoted, not named', () => {
  it('Windows: an id in letters of any script goes in double quotes; one with a typographic quote or dash is named', async () => {
    for (const [id, shown] of [['café-1', '"café-1"'], ['ジョブ7', '"ジョブ7"'], ['it\u2019s', '<id>'], ['a\u2013b', '<id>']] as const) {
      fx.sandbox.addJob({ id, status: 'completed', pagesTotal: 1 });
      const r = await crawl(['job', 'cancel', '--', id], { env: fx.env, platform: windows });
      expect(r.code).toBe(1);
      expect(suggested(r.stderr, 'see where it stands with'), id).toBe(`crawl job status ${shown}`);
    }
  });

  it.each([
    ['Windows', '"müller"', windows, {}],
    ['Windows where the shell cannot be told', '"müller"', windows, { TERM: 'xterm' }],
    ['Windows under Git Bash', "'müller'", windows, { MSYSTEM: 'MINGW64' }],
    ['macOS', "'müller'", mac, {}],
  ] as const)('%s: the run\'s --profile müller repeated in a hint is %s', async (_, shown, platform, env) => {
    const r = await crawl(['--profile', 'müller', 'job', 'status'], { env: { ...fx.env, ...env }, platform });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`hint: run \`crawl --profile ${shown} job status --help\` for usage\n`);
  });
});

describe('the run\'s --base-url repeated in a hint', () => {
  it('Windows: a URL not safe bare is named <base-url>, a plain one repeated; on macOS it is quoted', async () => {
    const env = { CRAWL_CONFIG_DIR: fx.env.CRAWL_CONFIG_DIR };
    const odd = 'https://crawl.example/v1?a=1&calc';
    const win = await crawl(['--base-url', odd, 'job', 'list'], { env, platform: windows });
    expect(win.code).toBe(2);
    const hint = win.stderr.split('\n').find((l) => l.startsWith('hint:')) ?? '';
    expect(hint).toMatch(/`crawl --base-url <base-url> /);
    expect(hint).not.toContain('&calc');
    const plain = await crawl(['--base-url', 'https://crawl.example/v1', 'job', 'list'], { env, platform: windows });
    expect(plain.stderr).toMatch(/`crawl --base-url https:\/\/crawl.example\/v1 /);
    const posix = await crawl(['--base-url', odd, 'job', 'list'], { env, platform: mac });
    expect(posix.stderr).toContain(`crawl --base-url '${odd}' `);
  });
});
