// The README as a newcomer meets it: its quick start and every `$ ` line of its tour run as written
// on this clone (a real bash, the built bin/crawl.js, the sandbox started as the tour starts it).
// Its tables and links are checked in this process by test/build/docs.test.ts.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { ROOT, spawnProcess } from '../support/spawn.js';
import { needs } from '../support/tools.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The fenced blocks of a markdown text, with their info string. */
function blocks(markdown: string): Array<{ lang: string; lines: string[] }> {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1] ?? '', lines: (m[2] ?? '').trimEnd().split('\n') }));
}

/** A section of the README, from its `## ` heading to the next. */
function section(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

const home = tempDir('crawl-readme-home-');
/** A newcomer's shell: nothing of crawl's set (spawnProcess's clean environment), a home of its own. */
const newcomer = { env: { HOME: home.dir }, cwd: ROOT };
afterAll(() => home.cleanup());

// Side by side: the demo runs while the tour waits on its watch (a poll every 2 s, as a user's).
describe.concurrent('the README', () => {
  it('quick start: exactly `npm ci && npm run demo` and `npm test`; the demo runs to the end', async ({ expect }) => {
    const quick = blocks(section('Quick start'))[0];
    expect(quick?.lines.map((line) => line.replace(/\s+#.*$/, ''))).toEqual(['npm ci && npm run demo', 'npm test']);
    // npm ci has run (this suite runs on its build); the demo is the rest of the first line. A home
    // of its own (the tour's test shares the other), and no XDG_STATE_HOME, as a newcomer has none.
    const demoHome = tempDir('crawl-demo-home-');
    try {
      const demo = await spawnProcess('sh', ['-c', 'npm run demo'], { env: { HOME: demoHome.dir, XDG_STATE_HOME: undefined }, cwd: ROOT, timeoutMs: 100_000 });
      expect(demo.code, demo.stdout + demo.stderr).toBe(0);
      expect(demo.stdout).toContain('Tour complete.');
      // The tour's job ids are kept in its own throwaway folder: in the user's, they would push the
      // user's own out of the ids Tab offers.
      expect(existsSync(join(demoHome.dir, '.local', 'state', 'crawl', 'recent-jobs.json'))).toBe(false);
    } finally {
      demoHome.cleanup();
    }
  }, 120_000);

  it('the tour: every `$ ` line runs as written, in one bash, against the sandbox it starts', { ...needs('bash'), timeout: 120_000 }, async ({ expect }) => {
    const tour = blocks(README)
      .filter(({ lang }) => lang === 'console')
      .flatMap(({ lines }) => {
        // Each command with the lines the README shows after it.
        const steps: Array<{ command: string; shown: string[] }> = [];
        for (const line of lines) {
          if (line.startsWith('$ ')) steps.push({ command: line.slice(2), shown: [] });
          else steps.at(-1)?.shown.push(line);
        }
        return steps;
      });
    const starts = tour.filter(({ command }) => /node bin\/crawl\.js sandbox\b/.test(command));
    expect(starts, 'the tour starts one sandbox').toHaveLength(1);
    const [server] = starts;
    const rest = tour.filter((step) => step !== server);
    expect(rest.length).toBeGreaterThan(10);
    expect(server?.command).toContain('--port 8787');

    // Port 8787 may be taken on this machine: the one change to what the README says is the port,
    // a free one that the sandbox picks and prints. bash execs the sandbox (one simple command).
    const shownByServer = server?.shown ?? [];
    expect(shownByServer.length).toBeGreaterThan(0);
    let sandbox: ChildProcess | undefined;
    let up: (port: string) => void = () => undefined;
    const listening = new Promise<string>((resolvePort) => (up = resolvePort));
    const ended = spawnProcess('bash', ['-c', (server?.command ?? '').replace('--port 8787', '--port 0')], {
      ...newcomer,
      timeoutMs: 110_000,
      onSpawn: (child, output) => {
        sandbox = child;
        // Up once it has printed what the README shows it printing (on the port it picked).
        child.stdout?.on('data', () => {
          const port = /Sandbox listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output.stdout())?.[1];
          if (port && shownByServer.every((line) => output.stdout().includes(line.replaceAll('8787', port)))) up(port);
        });
      },
    });
    let shell;
    try {
      const port = await Promise.race([
        listening,
        ended.then((out) => {
          throw new Error(`the sandbox ended before printing what the README shows:\n${out.stdout}${out.stderr}`);
        }),
      ]);
      // One shell for the rest, as the second terminal: what a line sets (the alias, the exports)
      // holds for the lines after it. Each line's stdout is marked, to check what the README shows.
      const script = ['shopt -s expand_aliases'];
      for (const [i, { command }] of rest.entries()) {
        script.push(`printf '\\n@@%s\\n' ${i}`, command.replaceAll('8787', port));
        script.push(`rc=$?; [ "$rc" -eq 0 ] || { printf 'README line %s exited %s\\n' ${i} "$rc" >&2; exit 99; }`);
      }
      const file = join(home.dir, 'terminal-2.sh');
      writeFileSync(file, script.join('\n') + '\n');
      shell = await spawnProcess('bash', [file], { ...newcomer, timeoutMs: 100_000 });
    } finally {
      sandbox?.kill('SIGTERM');
      await ended;
    }
    const failed = /README line (\d+) exited (\d+)/.exec(shell.stderr);
    expect(failed, failed ? `\`${rest[Number(failed[1])]?.command}\` exited ${failed[2]}:\n${shell.stderr}` : '').toBeNull();
    expect(shell.code, shell.stderr).toBe(0);

    // What a pipe prints is what the README shows (tables and field views are a terminal's).
    const outputs = shell.stdout.split(/\n@@\d+\n/).slice(1);
    expect(outputs).toHaveLength(rest.length);
    let compared = 0;
    for (const [i, { command, shown }] of rest.entries()) {
      if (shown.length === 0 || !/ --jq | \| |echo \$\?/.test(command)) continue;
      expect(outputs[i]?.trimEnd().split('\n').at(-1), command).toBe(shown.at(-1));
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(3);
  });
});
