// The documentation against what it documents: the README's tables are what the help says (exit
// codes, each command's flags), and every link of the README and of docs/ leads to a file, and to
// a heading there when it names one. docs/commands.md itself is checked by commands-doc.test.ts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawl } from '../support/harness.js';
import { linkTargets } from '../support/markdown.js';
import { ROOT } from '../support/spawn.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** A section of the README, from its `## ` heading to the next. */
function section(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

describe('the README and docs/', () => {
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

  it("a link to the repository's own files (where the package holds no copy) names a file or folder of this clone", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { repository: { url: string } };
    const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    const pages = [join(ROOT, 'README.md'), join(ROOT, 'CHANGELOG.md'), ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(ROOT, 'docs', f))];
    let checked = 0;
    for (const page of pages) {
      for (const target of linkTargets(readFileSync(page, 'utf8'))) {
        if (!target.startsWith(`${repository}/`)) continue;
        const path = /^\/(?:blob|tree)\/main\/([^#?]+)/.exec(target.slice(repository.length))?.[1];
        expect(path, `${page}: ${target}`).toBeDefined();
        expect(existsSync(join(ROOT, path ?? '')), `${page}: ${target}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(5);
  });
});
