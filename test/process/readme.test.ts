// The README as a newcomer meets it: its quick start and every `$ ` line of its tour run as written
// on this clone (a real bash, the built bin/crawl.js, the sandbox started as the tour starts it),
// its exit-code table is `crawl help exit-codes`, and its links and those of docs/ lead somewhere.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, tempDir } from '../helpers/cli.js';
import { crawl } from '../support/harness.js';

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

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd: string }): Promise<Exit> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

const home = tempDir('crawl-readme-home-');
/** A newcomer's shell: nothing of crawl's set, a home of its own (the tour writes no file in it). */
const newcomer = (): NodeJS.ProcessEnv => cleanEnv({ HOME: home.dir });
const stops: Array<() => void> = [];
afterAll(() => {
  for (const stop of stops) stop();
  home.cleanup();
});

describe('the README', () => {
  it('quick start: exactly `npm ci && npm run demo` and `npm test`; the demo runs to the end', async () => {
    const quick = blocks(section('Quick start'))[0];
    expect(quick?.lines.map((line) => line.replace(/\s+#.*$/, ''))).toEqual(['npm ci && npm run demo', 'npm test']);
    // npm ci has run (this suite runs on its build); the demo is the rest of the first line.
    const demo = await run('sh', ['-c', 'npm run demo'], { env: newcomer(), cwd: ROOT });
    expect(demo.code, demo.stdout + demo.stderr).toBe(0);
    expect(demo.stdout).toContain('Tour complete.');
  }, 120_000);

  it('the tour: every `$ ` line runs as written, in one bash, against the sandbox it starts', async () => {
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
    // a free one that the sandbox picks and prints.
    const sandbox = spawn('bash', ['-c', (server?.command ?? '').replace('--port 8787', '--port 0')], {
      cwd: ROOT,
      env: newcomer(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    stops.push(() => {
      // Its process group (bash and the sandbox), ended unless it has already.
      if (sandbox.exitCode !== null || sandbox.signalCode !== null || sandbox.pid === undefined) return;
      try {
        process.kill(-sandbox.pid, 'SIGTERM');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    });
    // Up once it has printed what the README shows it printing (on the port it picked).
    sandbox.stderr.resume(); // its --log lines: read, so the pipe never fills
    const shownByServer = server?.shown ?? [];
    expect(shownByServer.length).toBeGreaterThan(0);
    const port = await new Promise<string>((found, fail) => {
      let out = '';
      sandbox.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const listening = /Sandbox listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1];
        if (listening && shownByServer.every((line) => out.includes(line.replaceAll('8787', listening)))) found(listening);
      });
      sandbox.on('close', (code) => fail(new Error(`the sandbox exited (${code}) before printing what the README shows:\n${out}`)));
    });

    // One shell for the rest, as the second terminal: what a line sets (the alias, the exports)
    // holds for the lines after it. Each line's stdout is marked, to check what the README shows.
    const script = ['shopt -s expand_aliases'];
    for (const [i, { command }] of rest.entries()) {
      script.push(`printf '\\n@@%s\\n' ${i}`, command.replaceAll('8787', port));
      script.push(`rc=$?; [ "$rc" -eq 0 ] || { printf 'README line %s exited %s\\n' ${i} "$rc" >&2; exit 99; }`);
    }
    const file = join(home.dir, 'terminal-2.sh');
    writeFileSync(file, script.join('\n') + '\n');
    const shell = await run('bash', [file], { env: newcomer(), cwd: ROOT });
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
  }, 120_000);

  it("its table of commands names each command's flags as its --help does", async () => {
    const table = README.split('\n').filter((line) => line.startsWith('| `crawl '));
    expect(table.length).toBeGreaterThan(15);
    let checked = 0;
    for (const row of table) {
      const usage = /^\| `crawl ([^`]+)`/.exec(row)?.[1] ?? '';
      const words = usage.split(' ').filter((word, i, all) => /^[a-z]+$/.test(word) && all.slice(0, i).every((w) => /^[a-z]+$/.test(w)));
      const flags = usage.match(/(?<![\w-])--?[a-zA-Z][\w-]*/g) ?? [];
      if (flags.length === 0) continue;
      const help = (await crawl([...words, '--help'], { env: {} })).stdout;
      for (const flag of flags) expect(help, `${row}: ${flag}`).toMatch(new RegExp(`(^|[\\s,])${flag}[\\s,=]`, 'm'));
      checked++;
    }
    expect(checked).toBeGreaterThan(8);
  });

  it('its exit-code table is `crawl help exit-codes`', async () => {
    const rows = section('Exit codes')
      .split('\n')
      .map((line) => /^\| (\d+) \| (.*) \|$/.exec(line))
      .filter((m) => m !== null)
      .map((m) => [m[1], m[2]]);
    const help = (await crawl(['help', 'exit-codes'], { env: {} })).stdout;
    // The table's rows, each meaning joined from the lines it wraps over.
    const helpRows: string[][] = [];
    for (const line of (help.split('\n\n')[0] ?? '').split('\n').slice(1)) {
      const row = /^(\d+) +(.*)$/.exec(line);
      if (row) helpRows.push([row[1] ?? '', row[2] ?? '']);
      else helpRows.at(-1)?.splice(1, 1, `${helpRows.at(-1)?.[1] ?? ''} ${line.trim()}`);
    }
    expect(rows.length).toBeGreaterThanOrEqual(14);
    expect(rows).toEqual(helpRows);
  });

  it('every link of the README and of docs/ leads to a file, and to a heading there when it names one', () => {
    const slug = (heading: string): string =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/ /g, '-');
    const headings = (path: string): string[] =>
      readFileSync(path, 'utf8')
        .replace(/^```[\s\S]*?^```$/gm, '')
        .split('\n')
        .filter((line) => /^#{1,6} /.test(line))
        .map((line) => slug(line.replace(/^#+ /, '')));
    const pages = [join(ROOT, 'README.md'), ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(ROOT, 'docs', f))];
    let checked = 0;
    for (const page of pages) {
      const text = readFileSync(page, 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
      for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? page : resolve(dirname(page), path);
        expect(existsSync(file), `${page}: ${target}`).toBe(true);
        if (anchor !== undefined && file.endsWith('.md')) expect(headings(file), `${page}: ${target}`).toContain(anchor);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
