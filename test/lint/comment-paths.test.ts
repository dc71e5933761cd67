// Every path a comment names exists: a comment that points at a moved or deleted file sends the
// next reader looking for it. The comments of the code and tests (and the repository's own config
// files) are read with TypeScript's scanner, so strings and regular expressions are not taken for
// comments; a path is a word with a slash, or a file name with a code extension.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CODE = /\.(ts|cts|mts|js|cjs|mjs)$/;
/** Folders whose files are not ours to keep true (built, installed, or the tests' own fixtures' output). */
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', 'coverage']);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIP_DIRS.has(entry.name) ? [] : filesUnder(path);
    return CODE.test(entry.name) ? [path] : [];
  });
}

/** The text of every comment in a file of code. */
function commentsOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, /\.(c|m)?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const found = new Map<number, string>();
  const take = (ranges: ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? []) found.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node): void => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.getChildren(source).forEach(visit);
  };
  visit(source);
  return [...found.entries()].sort(([a], [b]) => a - b).map(([, comment]) => comment);
}

/**
 * The words of a comment that name a file or folder of ours: `src/app/guard.ts`, `commands/work.ts`,
 * `line-pipe.ts`, `test/battery-*.test.ts` (a glob: some file matches). Not absolute paths (`/bin/sh`),
 * URLs, a variable's folder (`$XDG_STATE_HOME/crawl`), nor `.js` / `.cjs` names alone (files of the
 * built bundle, such as `main.cjs`).
 */
function pathsIn(comment: string): string[] {
  const words = comment.match(/(?<![\w/.$*-])(?:[\w.@~*-]*[\w@~*-]\/[\w./@~*-]*[\w*]|[\w*-]+(?:\.[\w-]+)*\.(?:ts|cts|mts|mjs)\b)/g) ?? [];
  return words.filter((w) => {
    if (/^[A-Z][A-Z0-9_]*\//.test(w)) return false;
    // A path names a file by its extension, or a folder of ours by its first word.
    return CODE.test(w) || /^(src|test|bin|docs|examples|\.ci)\//.test(w) || /\.(md|json|sh)$/.test(w);
  });
}

const everyFile = filesUnder(ROOT).map((f) => relative(ROOT, f));
const byName = new Map<string, string[]>();
for (const f of everyFile) byName.set(basename(f), [...(byName.get(basename(f)) ?? []), f]);

/** Where a path named in `file` may be: from the root, src/, test/, the file's folder; a `.js` import name for its `.ts`. */
function exists(path: string, file: string): boolean {
  const clean = path.replace(/[.]+$/, '');
  if (clean.includes('*')) return globMatches(clean);
  const names = [clean, clean.replace(/\.js$/, '.ts'), clean.replace(/\.cjs$/, '.cts'), clean.replace(/\.mjs$/, '.mts')];
  const bases = [ROOT, join(ROOT, 'src'), join(ROOT, 'test'), dirname(join(ROOT, file))];
  if (bases.some((b) => names.some((n) => existsSync(join(b, n))))) return true;
  // dist/ and node_modules/ are made by the build and npm ci: named by their source, they exist once those ran.
  if (/^(dist|node_modules)\//.test(clean)) return existsSync(join(ROOT, clean)) || isBuilt(clean);
  // A file name alone (`line-pipe.ts`) or the tail of a path (`app/guard.ts`): a file of ours ending so.
  return names.some((n) => (byName.get(basename(n)) ?? []).some((c) => !n.includes('/') || c.endsWith('/' + n)));
}

/** `test/battery-*.test.ts`: some file of ours, from the root, matches it. */
function globMatches(glob: string): boolean {
  const pattern = new RegExp('(^|/)' + glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*') + '$');
  return everyFile.some((f) => pattern.test(f));
}

function isBuilt(path: string): boolean {
  const source = path.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts').replace(/\.cjs$/, '.cts');
  return existsSync(join(ROOT, source)) || (existsSync(join(ROOT, 'src')) && statSync(join(ROOT, 'src')).isDirectory() && path.startsWith('dist/') && !CODE.test(path));
}

describe('paths named in comments', () => {
  it('finds comments and the paths in them (strings and regular expressions are not comments)', () => {
    const text = "const u = 'http://x/src/nowhere.ts'; // see src/app/guard.ts and /bin/sh\nconst r = /a\\/b\\/c.ts/; /* and line-pipe.ts, test/helpers/*.ts */\n";
    const comments = commentsOf('x.ts', text);
    expect(comments).toEqual(['// see src/app/guard.ts and /bin/sh', '/* and line-pipe.ts, test/helpers/*.ts */']);
    expect(comments.flatMap(pathsIn)).toEqual(['src/app/guard.ts', 'line-pipe.ts', 'test/helpers/*.ts']);
    expect(exists('test/helpers/*.ts', 'x.ts')).toBe(true);
    expect(exists('test/nowhere-*.ts', 'x.ts')).toBe(false);
    expect(exists('app/guard.ts', 'x.ts')).toBe(true);
    expect(exists('src/app/guard.ts', 'x.ts')).toBe(true);
    expect(exists('src/cli/critical.ts', 'x.ts')).toBe(false);
    expect(exists('test/startup.test.ts', 'x.ts')).toBe(false);
  });

  it('every path a comment names, in src/, test/, bin/ and the config files at the root, exists', () => {
    const files = everyFile.filter((f) => /^(src|test|bin)\//.test(f) || !f.includes('/'));
    expect(files).toEqual(expect.arrayContaining(['src/main.ts', 'test/lint/comment-paths.test.ts', 'bin/crawl.js', 'vitest.config.ts']));
    const missing = files.flatMap((file) =>
      commentsOf(file, readFileSync(join(ROOT, file), 'utf8'))
        .flatMap(pathsIn)
        .filter((path) => !exists(path, file))
        .map((path) => `${file}: ${path}`),
    );
    expect(missing).toEqual([]);
  });
});
