// A real vitest run of test/support/tools-fixture/ with no tool on PATH, in both modes of
// test/support/tools.ts: what a developer on a bare machine and what CI would see (the summary, the
// skipped or failed tests, no second error from a hook). A process: vitest started by the test.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { cleanEnv, ROOT } from '../support/spawn.js';

const tmp = tempDir('crawl-tools-');
afterAll(() => tmp.cleanup());

interface Run {
  code: number;
  stdout: string;
  /** stdout and stderr (where vitest prints each failure). */
  out: string;
}

describe('a run with no tool on PATH (tools-fixture/)', () => {
  /** vitest over tools-fixture/needs.fixture.ts, with a PATH of an empty folder: its exit code, its stdout, and both streams. */
  function runFixture(env: Record<string, string>): Promise<Run> {
    const empty = join(tmp.dir, `empty-${Math.random().toString(36).slice(2)}`);
    mkdirSync(empty);
    const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
    const config = join(ROOT, 'test', 'support', 'tools-fixture', 'vitest.config.ts');
    return new Promise((resolve) => {
      execFile(process.execPath, [vitest, 'run', '--config', config], { cwd: ROOT, env: cleanEnv({ PATH: empty, CI: 'true', NO_COLOR: '1', ...env }), timeout: 120_000 }, (error, stdout, stderr) => {
        const plain = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: plain(stdout), out: plain(stdout + stderr) });
      });
    });
  }
  // The two runs side by side, started by whichever test comes first.
  let started: Promise<[Run, Run]> | undefined;
  const runs = (): Promise<[Run, Run]> => (started ??= Promise.all([runFixture({}), runFixture({ CRAWL_TEST_TOOLS: 'required' })]));
  /** The last lines printed (vitest's summary and the reporter's are on stdout, its failures on stderr). */
  const lastLines = (out: string, n: number): string[] => out.trimEnd().split('\n').slice(-n);

  it('by default: the run passes, the tests that need a tool skipped (no hook of theirs run), and its last lines say which and why', { timeout: 120_000 }, async () => {
    const [{ code, stdout, out }] = await runs();
    expect(code, out).toBe(0);
    expect(out).toMatch(/Tests\s+1 passed \| 3 skipped \(4\)/);
    expect(out).not.toMatch(/TypeError|MissingToolError/);
    expect(lastLines(stdout, 5)).toEqual([
      'Missing tools: 3 tests skipped, as they need programs that are not on PATH:',
      '  fish (Debian package fish): 1 test',
      '  tmux (Debian package tmux): 1 test',
      '  zsh (Debian package zsh): 2 tests',
      'To run them: apt-get install fish tmux zsh',
    ]);
  });

  it('CRAWL_TEST_TOOLS=required: each of those tests fails, naming the tools and packages, before its hooks (no second error); the last lines say so', { timeout: 120_000 }, async () => {
    const [, { code, stdout, out }] = await runs();
    expect(code, out).toBe(1);
    expect(out).toMatch(/Tests\s+3 failed \| 1 passed \(4\)/);
    expect(out).toContain('MissingToolError: not on PATH: zsh (Debian package zsh); install with `apt-get install zsh`');
    expect(out).toContain('MissingToolError: not on PATH: tmux (Debian package tmux), fish (Debian package fish); install with `apt-get install tmux fish`');
    for (const name of ['a zsh session > completes a command', 'a zsh session > completes a flag', 'a terminal multiplexer and another shell > draws in tmux, typed in fish']) {
      expect(out).toContain(`FAIL  needs.fixture.ts > ${name}`);
    }
    expect(out).not.toContain('TypeError');
    expect(lastLines(stdout, 5)).toEqual([
      'Missing tools: 3 tests need programs that are not on PATH, and CRAWL_TEST_TOOLS=required fails them:',
      '  fish (Debian package fish): 1 test',
      '  tmux (Debian package tmux): 1 test',
      '  zsh (Debian package zsh): 2 tests',
      'To run them: apt-get install fish tmux zsh',
    ]);
  });
});
