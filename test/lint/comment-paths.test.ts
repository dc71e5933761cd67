// Every path a comment names exists: a comment that points at a moved or deleted file sends the
// next reader looking for it. The comments of the code and tests (and the repository's own config
// files) are read with TypeScript's scanner, so strings and regular expressions are not taken for
// comments; a path is a word with a slash, or a file name with a code extension. The README,
// ARCHITECTURE.md and the Markdown files of docs/ are held to the same, their whole text
// (CHANGELOG.md is history: it names what was there then).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CODE = /\.(ts|cts|mts|js|cjs|mjs)$/;
/** Folders whose files are not ours to keep true: built, installed, or hidden (.git, the tests' scratch folder). */
const SKIP_DIRS = new Set(['node_modules', 'dist', 'coverage']);

function filesUnder(dir: string, names: RegExp = CODE): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIP_DIRS.has(entry.name) || entry.name.startsWith('.') ? [] : filesUnder(path, names);
    return names.test(entry.name) ? [path] : [];
  });
}

const K = ts.SyntaxKind;
/** Tokens after which a `/` divides; after any other it starts a regular expression. */
const VALUE_END = new Set([K.Identifier, K.PrivateIdentifier, K.NumericLiteral, K.BigIntLiteral, K.StringLiteral, K.NoSubstitutionTemplateLiteral, K.TemplateTail, K.RegularExpressionLiteral, K.CloseParenToken, K.CloseBracketToken, K.CloseBraceToken, K.ThisKeyword, K.SuperKeyword, K.TrueKeyword, K.FalseKeyword, K.NullKeyword, K.PlusPlusToken, K.MinusMinusToken]);
const TRIVIA = new Set([K.WhitespaceTrivia, K.NewLineTrivia, K.ShebangTrivia, K.ConflictMarkerTrivia]);

/**
 * The text of every comment in a file of code, read with TypeScript's scanner: a `/` that starts a
 * regular expression and the `}` that resumes a template are rescanned as the parser would, so no
 * string, template or regular expression is taken for a comment (a tenth of a full parse's time).
 */
function commentsOf(text: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const out: string[] = [];
  // For each template being read: how many `{` of its current substitution are open.
  const templates: number[] = [];
  let previous: ts.SyntaxKind = K.Unknown;
  for (let token = scanner.scan(); token !== K.EndOfFileToken; token = scanner.scan()) {
    if (token === K.SingleLineCommentTrivia || token === K.MultiLineCommentTrivia) {
      out.push(scanner.getTokenText());
      continue;
    }
    if (TRIVIA.has(token)) continue;
    if ((token === K.SlashToken || token === K.SlashEqualsToken) && !VALUE_END.has(previous)) token = scanner.reScanSlashToken();
    else if (token === K.TemplateHead) templates.push(0);
    else if (token === K.OpenBraceToken && templates.length > 0) templates[templates.length - 1]! += 1;
    else if (token === K.CloseBraceToken && templates.length > 0) {
      if (templates[templates.length - 1] === 0) {
        token = scanner.reScanTemplateToken(false);
        if (token === K.TemplateTail) templates.pop();
      } else templates[templates.length - 1]! -= 1;
    }
    previous = token;
  }
  return out;
}

/**
 * The words of a comment that name a file or folder of ours: `src/app/guard.ts`, `commands/work.ts`,
 * `line-pipe.ts`, `test/http/network-*.test.ts` (a glob: some file matches). Not absolute paths (`/bin/sh`),
 * URLs, a variable's folder (`$XDG_STATE_HOME/crawl`), nor `.js` / `.cjs` names alone (files of the
 * built bundle, such as `main.cjs`).
 */
function pathsIn(comment: string): string[] {
  const words = comment.match(/(?<![\w/.$*-])(?:[\w.@~*-]*[\w@~*-]\/[\w./@~*-]*[\w*]|[\w*-]+(?:\.[\w-]+)*\.(?:ts|cts|mts|mjs)\b)/g) ?? [];
  return words.filter((w) => {
    if (/^[A-Z][A-Z0-9_]*\//.test(w)) return false;
    // In a user's home (`~/.config/crawl`), or crawl's own folder under a base named beside it
    // (`XDG_STATE_HOME`, base of `crawl/recent-jobs.json`): not a file of this repository.
    if (/^(~|crawl\/)/.test(w)) return false;
    // A pattern with a letter for each part (`src/X/Y.ts` is tested in `test/X/Y.test.ts`).
    if (/(^|\/)[A-Z](\/|\.)/.test(w)) return false;
    // A path names a file by its extension, or a folder of ours by its first word.
    return CODE.test(w) || /^(src|test|bin|docs|examples|\.ci)\//.test(w) || /\.(md|json|sh)$/.test(w);
  });
}

const everyFile = filesUnder(ROOT).map((f) => relative(ROOT, f));
/** Every file, code or not, for a glob (`docs/*.md`). */
const anyFile = filesUnder(ROOT, /./).map((f) => relative(ROOT, f));
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

/** `test/http/network-*.test.ts`: some file of ours, from the root, matches it. */
function globMatches(glob: string): boolean {
  const pattern = new RegExp('(^|/)' + glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*') + '$');
  return anyFile.some((f) => pattern.test(f));
}

function isBuilt(path: string): boolean {
  const source = path.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts').replace(/\.cjs$/, '.cts');
  return existsSync(join(ROOT, source)) || (existsSync(join(ROOT, 'src')) && statSync(join(ROOT, 'src')).isDirectory() && path.startsWith('dist/') && !CODE.test(path));
}

describe('paths named in comments', () => {
  it('finds comments and the paths in them (strings and regular expressions are not comments)', () => {
    const text = "const u = 'http://x/src/nowhere.ts'; // see src/app/guard.ts and /bin/sh\nconst r = /a\\/b\\/c.ts/; /* and line-pipe.ts, test/support/*.ts */\nconst t = `${a}//x${`/*`}`, d = 4 / 2 / 1;\n";
    const comments = commentsOf(text);
    expect(comments).toEqual(['// see src/app/guard.ts and /bin/sh', '/* and line-pipe.ts, test/support/*.ts */']);
    expect(comments.flatMap(pathsIn)).toEqual(['src/app/guard.ts', 'line-pipe.ts', 'test/support/*.ts']);
    expect(exists('test/support/*.ts', 'x.ts')).toBe(true);
    expect(exists('test/nowhere-*.ts', 'x.ts')).toBe(false);
    expect(exists('docs/*.md', 'x.ts')).toBe(true);
    expect(exists('app/guard.ts', 'x.ts')).toBe(true);
    expect(exists('src/app/guard.ts', 'x.ts')).toBe(true);
    expect(exists('src/cli/critical.ts', 'x.ts')).toBe(false);
    expect(exists('test/startup.test.ts', 'x.ts')).toBe(false);
    expect(pathsIn('`~/.config/crawl/config.json`, base of crawl/recent-jobs.json; src/X/Y.ts in test/X/Y.test.ts; see docs/ci.md and test/launch/user-cache.test.ts')).toEqual(['docs/ci.md', 'test/launch/user-cache.test.ts']);
  });

  it('every path a comment names, in src/, test/, bin/ and the config files at the root, exists', () => {
    const files = everyFile.filter((f) => /^(src|test|bin)\//.test(f) || !f.includes('/'));
    expect(files).toEqual(expect.arrayContaining(['src/main.ts', 'test/lint/comment-paths.test.ts', 'bin/crawl.js', 'vitest.config.ts']));
    const missing = files.flatMap((file) =>
      commentsOf(readFileSync(join(ROOT, file), 'utf8'))
        .flatMap(pathsIn)
        .filter((path) => !exists(path, file))
        .map((path) => `${file}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('every path the README, ARCHITECTURE.md and docs/*.md name exists', () => {
    const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
    const files = ['README.md', 'ARCHITECTURE.md', ...docs];
    expect(docs).toEqual(expect.arrayContaining(['docs/development.md', 'docs/performance.md', 'docs/windows.md']));
    const missing = files.flatMap((file) =>
      pathsIn(readFileSync(join(ROOT, file), 'utf8'))
        .filter((path) => !exists(path, file))
        .map((path) => `${file}: ${path}`),
    );
    expect(missing).toEqual([]);
  });
});
