// The man pages (dist/man, made by `npm run build` from src/build/man.ts): one for crawl and one
// for each command, holding the same text as the command's --help, placeholders such as <id> kept.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/spawn.js';
import { crawl } from '../support/harness.js';

const MAN = join(ROOT, 'dist', 'man');

/** The text of a roff page as man shows it, near enough: escapes undone, requests dropped. */
function unroff(roff: string): string {
  return roff
    .split('\n')
    .filter((line) => !line.startsWith('.'))
    .join('\n')
    .replace(/\\-/g, '-')
    .replace(/\\\./g, '.')
    .replace(/\\\(aq/g, "'")
    .replace(/\\\\/g, '\\')
    .replace(/\\f[BIR]/g, '');
}

/** Every command's words, found by walking the help as a user would. */
async function commands(): Promise<string[][]> {
  const listed = async (words: string[]): Promise<string[]> => {
    const help = (await crawl([...words, '--help'], { env: {} })).stdout;
    const section = help.split(/\n(?=\S)/).find((part) => part.startsWith('Commands:')) ?? '';
    return section.split('\n').slice(1).map((line) => /^ {2}(\S+)/.exec(line)?.[1]).filter((n): n is string => n !== undefined && n !== 'help');
  };
  const all: string[][] = [];
  for (const group of await listed([])) {
    const subs = await listed([group]);
    if (subs.length === 0) all.push([group]);
    for (const sub of subs) all.push([group, sub]);
  }
  return all;
}

describe('man pages', () => {
  it('one for crawl and one for each command, each with the text of its --help', async () => {
    const all = await commands();
    expect(all.length).toBeGreaterThan(15);
    expect(readdirSync(MAN).sort()).toEqual(['crawl.1', ...all.map((words) => `crawl-${words.join('-')}.1`)].sort());
    for (const words of all) {
      const name = `crawl-${words.join('-')}`;
      const roff = readFileSync(join(MAN, `${name}.1`), 'utf8');
      expect(roff.startsWith(`.TH "${name.toUpperCase().replace(/-/g, '\\-')}" "1"`), name).toBe(true);
      const text = unroff(roff);
      const help = (await crawl([...words, '--help'], { env: {}, tty: { stdout: true }, columns: 72 })).stdout;
      for (const line of help.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !/^[A-Z][A-Za-z ]*:$/.test(l))) {
        expect(text, `${name}: ${line}`).toContain(line.replace(/^Usage: /, ''));
      }
    }
  });

  it('crawl(1) also holds the exit codes and the environment, and names every page', async () => {
    const text = unroff(readFileSync(join(MAN, 'crawl.1'), 'utf8'));
    expect(text).toMatch(/\n143 +terminated \(SIGTERM\)/);
    expect(text).toContain('CRAWL_API_KEY');
    expect(text).toContain('crawl-keys-rotate(1)');
    expect(text).toContain('crawl-job-watch(1)');
  });

  it("package.json's `man` lists every page the build makes (npm links only those on install)", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { man?: string[] };
    expect((pkg.man ?? []).map((path) => path.replace(/^\.\/dist\/man\//, '')).sort()).toEqual(readdirSync(MAN).sort());
  });
});
