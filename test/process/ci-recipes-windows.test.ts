// The Windows recipes of docs/ci.md (examples/rotate-github-actions.ps1, the store command run by
// PowerShell). No PowerShell runs here: the doc is checked to hold each script exactly, and the
// store command to have a form cmd.exe and every PowerShell pass on whole; each script's crawl
// line, whose single quotes PowerShell and sh read alike (a literal string), is run with sh
// against the sandbox, the built crawl and a stand-in gh that keeps what it was given: the key on
// its stdin, never in its arguments or environment.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { cleanEnv, ROOT } from '../support/spawn.js';
import { keyStatus } from '../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { standIns } from '../support/stand-ins.js';

const EXAMPLES = join(ROOT, 'examples');
const scripts = readdirSync(EXAMPLES).filter((f) => f.endsWith('.ps1'));

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
let bin: string;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-ci-windows-');
  const made = standIns(tmp.dir);
  bin = made.bin;
  const tool = made.tool;
  tool('gh', `cat > "$STORE/gh.stdin"; printf '%s\\n' "$@" > "$STORE/gh.args"; env > "$STORE/gh.env"`);
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

describe('docs/ci.md', () => {
  it('holds each PowerShell recipe exactly', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'ci.md'), 'utf8');
    expect(scripts).toEqual(['rotate-github-actions.ps1']);
    for (const script of scripts) expect(doc, script).toContain('```powershell\n' + readFileSync(join(EXAMPLES, script), 'utf8') + '```');
  });
});

describe('docs/ci.md\'s store command run by PowerShell', () => {
  // Typed in PowerShell in single quotes (a literal), passed by PowerShell to crawl, run by crawl
  // through cmd.exe /d /s /c, which hands PowerShell what is left once it has read the line.
  it('holds no double quote (PowerShell 5.1 and 7.0 to 7.2 drop them from a program\'s argument), and escapes for cmd.exe what it acts on', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'ci.md'), 'utf8');
    const commands = [...doc.matchAll(/--to-command '((?:pwsh|powershell)\b[^']*)'/g)].map((m) => m[1] ?? '');
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) {
      expect(command).not.toMatch(/["\u201c\u201d\u201e]/);
      // cmd.exe reads the line first: what it acts on outside double quotes is escaped (`^|`), and
      // nothing in it expands (`%VAR%`, `!VAR!`).
      expect(command).not.toMatch(/(?<!\^)[&|<>()]/);
      expect(command).not.toMatch(/[%!]/);
      // What cmd.exe hands PowerShell, its escapes taken off: the words after -Command are the script.
      const words = command.replace(/\^(.)/g, '$1').split(/\s+/);
      expect(words.slice(words.indexOf('-Command') + 1).join(' ')).toBe('$input | Set-Secret crawl-key');
    }
  });
});

describe.each(scripts)('%s', (script) => {
  it('its crawl line rotates the key into gh\'s stdin, and the old key is revoked', async () => {
    const lines = readFileSync(join(EXAMPLES, script), 'utf8').split('\n').filter((line) => line.startsWith('crawl '));
    expect(lines).toHaveLength(1);
    const old = fx.sandbox.addKey('windows-recipe');
    const store = join(tmp.dir, 'store');
    mkdirSync(store);
    const env = cleanEnv({
      CRAWL_BASE_URL: fx.sandbox.url,
      CRAWL_API_KEY: old.key,
      CRAWL_CONFIG_DIR: join(tmp.dir, 'config'),
      GH_TOKEN: 'gh-token',
      STORE: store,
      PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    });
    const code = await new Promise<number>((resolve) => {
      execFile('sh', ['-c', lines[0] ?? ''], { env, cwd: store, timeout: 30_000 }, (error) => resolve(error ? Number(error.code ?? 1) : 0));
    });
    expect(code).toBe(0);
    const stored = readFileSync(join(store, 'gh.stdin'), 'utf8').trim();
    expect(stored).toMatch(/^crk_/);
    expect(readFileSync(join(store, 'gh.args'), 'utf8')).toBe('secret\nset\nCRAWL_API_KEY\n');
    expect(readFileSync(join(store, 'gh.env'), 'utf8')).not.toContain(stored);
    expect(readFileSync(join(store, 'gh.env'), 'utf8')).not.toContain(old.key);
    expect(await keyStatus(fx.sandbox, stored)).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(401);
  });
});
