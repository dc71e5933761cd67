// test/support/tools.ts: where a tool is looked up, what a test that needs a missing one becomes
// (skipped, or failed under CRAWL_TEST_TOOLS=required), the summary a run ends with, and the
// package each tool comes from. The real vitest run of tools-fixture/ with no tool on PATH (what a
// developer on a bare machine and what CI would see) is a process: test/process/tools.test.ts.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './harness.js';
import { ROOT } from './spawn.js';
import { installLine, missingTools, missingToolsSummary, MissingToolError, needs, toolOptions, toolPath, toolsRequired, TOOLS, type Tool } from './tools.js';

const tmp = tempDir('crawl-tools-');
afterAll(() => tmp.cleanup());

/** A folder holding an executable `zsh` (and, not executable, `fish`), for a PATH. */
function binWithZsh(): string {
  const bin = join(tmp.dir, `bin-${Math.random().toString(36).slice(2)}`);
  mkdirSync(bin);
  writeFileSync(join(bin, 'zsh'), '#!/bin/sh\n');
  chmodSync(join(bin, 'zsh'), 0o755);
  writeFileSync(join(bin, 'fish'), '#!/bin/sh\n', { mode: 0o644 });
  mkdirSync(join(bin, 'tmux'));
  return bin;
}

describe('looking a tool up', () => {
  it('an executable file on PATH, as a shell finds it; not one that cannot run, not a folder', () => {
    const bin = binWithZsh();
    const path = `${join(tmp.dir, 'nowhere')}:${bin}`;
    expect(toolPath('zsh', path)).toBe(join(bin, 'zsh'));
    expect(toolPath('fish', path)).toBeUndefined();
    expect(toolPath('tmux', path)).toBeUndefined();
    expect(missingTools(['zsh', 'fish', 'tmux', 'zsh'], path)).toEqual(['fish', 'tmux']);
    // An empty entry (the current folder, to a shell) is not searched.
    expect(toolPath('zsh', `:${join(tmp.dir, 'nowhere')}`)).toBeUndefined();
  });
});

describe('needs()', () => {
  const bin = binWithZsh();

  it('every tool there: no options, the test runs', () => {
    expect(toolOptions(['zsh'], { PATH: bin })).toEqual({});
  });

  it('one missing: skipped, the missing ones (only) in its meta for the summary', () => {
    expect(toolOptions(['zsh', 'fish', 'tmux'], { PATH: bin })).toEqual({ skip: true, meta: { missingTools: ['fish', 'tmux'] } });
  });

  it('one missing under CRAWL_TEST_TOOLS=required: not skipped, for tools-setup.ts to fail it', () => {
    expect(toolOptions(['zsh', 'fish'], { PATH: bin, CRAWL_TEST_TOOLS: 'required' })).toEqual({ meta: { missingTools: ['fish'] } });
  });

  it('CRAWL_TEST_TOOLS takes `required` alone: a misspelling is an error, not a run that skips', () => {
    expect(toolsRequired({})).toBe(false);
    expect(toolsRequired({ CRAWL_TEST_TOOLS: '' })).toBe(false);
    expect(toolsRequired({ CRAWL_TEST_TOOLS: 'required' })).toBe(true);
    expect(() => toolsRequired({ CRAWL_TEST_TOOLS: 'requried' })).toThrow('CRAWL_TEST_TOOLS=requried: the one value it takes is `required`');
    expect(() => toolOptions(['fish'], { PATH: bin, CRAWL_TEST_TOOLS: 'yes' })).toThrow(/CRAWL_TEST_TOOLS=yes/);
  });

  it('reads this process\'s PATH', () => {
    const here = (Object.keys(TOOLS) as Tool[]).filter((tool) => toolPath(tool) !== undefined);
    expect(needs(...here)).toEqual({});
  });
});

describe('what a missing tool says', () => {
  it('the error names each tool, its Debian package, and the install line', () => {
    const error = new MissingToolError(['script', 'gnome-keyring-daemon']);
    expect(error.message).toBe('not on PATH: script (Debian package bsdutils), gnome-keyring-daemon (Debian package gnome-keyring); install with `apt-get install bsdutils gnome-keyring`');
    expect(installLine(['dbus-daemon', 'dbus-run-session', 'zsh'])).toBe('apt-get install dbus-daemon zsh');
  });

  it('the summary: how many tests, how many for each tool and its package, the install line; nothing when none was missing', () => {
    const tests = [{ missingTools: ['zsh', 'script'] as Tool[] }, { missingTools: ['script'] as Tool[] }, {}, { missingTools: [] }];
    expect(missingToolsSummary(tests, false)).toEqual([
      'Missing tools: 2 tests skipped, as they need programs that are not on PATH:',
      '  script (Debian package bsdutils): 2 tests',
      '  zsh (Debian package zsh): 1 test',
      'To run them: apt-get install bsdutils zsh',
    ]);
    expect(missingToolsSummary(tests, true)[0]).toBe('Missing tools: 2 tests need programs that are not on PATH, and CRAWL_TEST_TOOLS=required fails them:');
    expect(missingToolsSummary([{}, { missingTools: [] }], false)).toEqual([]);
  });
});

describe('the packages', () => {
  it('each a Debian package name', () => {
    for (const [tool, pkg] of Object.entries(TOOLS)) expect({ tool, pkg }).toEqual({ tool, pkg: expect.stringMatching(/^[a-z0-9][a-z0-9+.-]+$/) });
  });

  it('.ci/run installs each (or Debian itself has it), and the README names the line it uses', () => {
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    const packages = /^packages=\(([^)]*)\)$/m.exec(ci)?.[1]?.split(/\s+/) ?? [];
    expect(packages.length).toBeGreaterThan(0);
    expect(ci).toMatch(/^export CRAWL_TEST_TOOLS=required$/m);
    for (const [tool, pkg] of Object.entries(TOOLS)) expect({ tool, installed: packages.includes(pkg) || DEBIAN_ITSELF.has(pkg) }).toEqual({ tool, installed: true });
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`\`apt-get install ${packages.join(' ')}\``);
  });

  it('each tool installed here comes from the package named (dpkg says)', needs('dpkg-query'), () => {
    const installed = (Object.keys(TOOLS) as Tool[]).flatMap((tool) => {
      const path = toolPath(tool);
      // One found outside the system's folders (pyenv's python3, a /usr/local build) is no package's.
      return path === undefined || !/^\/(usr\/)?s?bin\//.test(realpathSync(path)) ? [] : [{ tool, paths: candidates(path) }];
    });
    // dpkg-query itself is one, so the list is never empty.
    expect(installed.length).toBeGreaterThan(0);
    // One query for every path: dpkg prints `package: path` for those it knows (and exits 1 if
    // any is unknown: a /usr/bin path on a merged-/usr system is known as /bin).
    const out = spawnSync('dpkg-query', ['-S', ...installed.flatMap((t) => t.paths)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).stdout;
    const owner = new Map<string, string>();
    for (const line of out.split('\n')) {
      const at = line.lastIndexOf(': ');
      if (at > 0) owner.set(line.slice(at + 2), line.slice(0, at).split(/, /)[0]?.replace(/:.*$/, '') ?? '');
    }
    const found = installed.map(({ tool, paths }) => ({ tool, pkg: paths.map((p) => owner.get(p)).find((p) => p !== undefined) }));
    expect(found).toEqual(installed.map(({ tool }) => ({ tool, pkg: OWNED_BY[tool] ?? TOOLS[tool] })));
  });
});

/** Tools whose file belongs to a package that the one named installs (Debian's python3 depends on python3-minimal, which holds /usr/bin/python3). */
const OWNED_BY: Partial<Record<Tool, string>> = { python3: 'python3-minimal' };

/** Packages every Debian system has (Essential), which .ci/run need not install. */
const DEBIAN_ITSELF = new Set(['bash', 'bsdutils', 'util-linux', 'dpkg']);

/** Where dpkg may know a program found at `path` by: the path, where its links lead, and the other of /bin and /usr/bin. */
function candidates(path: string): string[] {
  // Each link on the way, nearest first: /usr/bin/python3 is python3-minimal's, python3.11 another's.
  const chain = [path];
  for (let at = path; chain.length < 16; ) {
    let target: string;
    try {
      target = readlinkSync(at);
    } catch {
      break;
    }
    at = resolve(dirname(at), target);
    chain.push(at);
  }
  chain.push(realpathSync(path));
  const swapped = (p: string): string => (p.startsWith('/usr/') ? p.slice(4) : `/usr${p}`);
  return [...new Set(chain.flatMap((p) => [p, swapped(p)]))];
}
