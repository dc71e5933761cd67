// Whether the `crawl` on PATH is this very crawl (src/platform/crawl-on-path.ts), on PATHs made of
// real folders holding real links, shims and scripts: npm's layouts, each system's rule.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative as relativePath } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { thisCrawlOnPath } from '../../src/platform/crawl-on-path.js';
import type { Platform } from '../../src/platform/platform.js';
import { tempDir } from '../support/harness.js';
import { posixGlobal, projectInstall, scriptFile as file, windowsGlobal } from '../support/installs.js';

let tmp: { dir: string; cleanup: () => void };
let n = 0;
beforeAll(() => {
  tmp = tempDir('crawl-on-path-');
});
afterAll(() => tmp.cleanup());

/** A fresh folder under the test's own. */
function folder(name: string): string {
  const dir = join(tmp.dir, `${++n}`, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const linux = (script: string | undefined): Platform => ({ os: 'linux', home: '', script });
const windows = (script: string | undefined): Platform => ({ os: 'win32', home: '', script });

describe('POSIX: the first executable crawl on PATH, through its links, is the script', () => {
  it('a global install (a link in <prefix>/bin): found whether the script or the link started the run', () => {
    const { bin, script, link } = posixGlobal(folder('usr'));
    const PATH = `${folder('other-bin')}:${bin}:/usr/bin`;
    expect(thisCrawlOnPath(linux(script), { PATH })).toBe(true);
    expect(thisCrawlOnPath(linux(link), { PATH })).toBe(true);
  });

  it('`npm link` from a clone: the link on PATH leads to the clone\'s bin/crawl.js, run as `node bin/crawl.js`', () => {
    const clone = folder('crawl');
    const script = file(join(clone, 'bin', 'crawl.js'));
    const prefix = folder('usr');
    mkdirSync(join(prefix, 'lib', 'node_modules', '@webcrawl'), { recursive: true });
    symlinkSync(clone, join(prefix, 'lib', 'node_modules', '@webcrawl', 'cli'));
    mkdirSync(join(prefix, 'bin'));
    symlinkSync(join('..', 'lib', 'node_modules', '@webcrawl', 'cli', 'bin', 'crawl.js'), join(prefix, 'bin', 'crawl'));
    expect(thisCrawlOnPath(linux(script), { PATH: join(prefix, 'bin') })).toBe(true);
  });

  it('another crawl earlier on PATH (the shell would run it): not found', () => {
    const { bin, script } = posixGlobal(folder('usr'));
    const other = folder('opt-bin');
    file(join(other, 'crawl'));
    expect(thisCrawlOnPath(linux(script), { PATH: `${other}:${bin}` })).toBe(false);
  });

  it('a crawl the shell would not run (not executable, a folder) is passed over', () => {
    const { bin, script } = posixGlobal(folder('usr'));
    const notExecutable = folder('a');
    file(join(notExecutable, 'crawl'), false);
    const aFolder = folder('b');
    mkdirSync(join(aFolder, 'crawl'));
    expect(thisCrawlOnPath(linux(script), { PATH: `${notExecutable}:${aFolder}:${bin}` })).toBe(true);
  });

  it('node_modules/.bin, which npm and npx put on the PATH of the run they start only: passed over', () => {
    // `npm run sandbox` in a project: <proj>/node_modules/.bin/crawl started the run, its folder first on PATH.
    const { dotBin, link } = projectInstall(folder('proj'));
    expect(thisCrawlOnPath(linux(link), { PATH: `${dotBin}:/usr/bin:/bin` })).toBe(false);
  });

  it('a relative PATH folder (another shell is elsewhere), an empty PATH, none, no script: not found', () => {
    const { script, link } = posixGlobal(folder('usr'));
    // The link's folder as seen from here: this process would find it, a shell elsewhere would not.
    const relative = relativePath(process.cwd(), dirname(link));
    expect(thisCrawlOnPath(linux(script), { PATH: relative })).toBe(false);
    expect(thisCrawlOnPath(linux(script), { PATH: '' })).toBe(false);
    expect(thisCrawlOnPath(linux(script), {})).toBe(false);
    expect(thisCrawlOnPath(linux(undefined), { PATH: dirname(link) })).toBe(false);
    expect(thisCrawlOnPath(linux(join(tmp.dir, 'gone.js')), { PATH: dirname(link) })).toBe(false);
  });

  it('a relative or empty entry before the crawl found (a folder that depends on where the other shell is): not found', () => {
    const { script, bin } = posixGlobal(folder('usr'));
    expect(thisCrawlOnPath(linux(script), { PATH: bin })).toBe(true);
    expect(thisCrawlOnPath(linux(script), { PATH: `bin:${bin}` })).toBe(false);
    expect(thisCrawlOnPath(linux(script), { PATH: `:${bin}` })).toBe(false);
    expect(thisCrawlOnPath(linux(script), { PATH: `/usr/bin::${bin}` })).toBe(false);
  });

  it('a clone run as node bin/crawl.js, no crawl on PATH: not found', () => {
    const script = file(join(folder('crawl'), 'bin', 'crawl.js'));
    expect(thisCrawlOnPath(linux(script), { PATH: `${folder('bin')}:/usr/bin:/bin` })).toBe(false);
  });
});

describe('Windows: the first PATH folder with a crawl shim holds the script in npm\'s global layout', () => {
  // Real folders of this system stand for Windows ones: PATH is split at `;`, read as `Path` too.
  it('npm\'s global folder on Path (its crawl.cmd and crawl.ps1 start node with the script): found', () => {
    const npm = folder('npm');
    const script = windowsGlobal(npm);
    expect(thisCrawlOnPath(windows(script), { Path: `${folder('System32')};${npm}` })).toBe(true);
    expect(thisCrawlOnPath(windows(script), { PATH: `"${npm}"` })).toBe(true);
    expect(thisCrawlOnPath(windows(script), { PATH: `${npm}\\` })).toBe(true);
  });

  it('any one of the shims is enough', () => {
    for (const shim of ['crawl.cmd', 'crawl.ps1', 'crawl']) {
      const npm = folder('npm');
      expect(thisCrawlOnPath(windows(windowsGlobal(npm, [shim])), { Path: npm })).toBe(true);
    }
  });

  it('another crawl earlier on Path (crawl.exe, another package\'s crawl.cmd): not found', () => {
    const npm = folder('npm');
    const script = windowsGlobal(npm);
    const tools = folder('tools');
    file(join(tools, 'crawl.exe'), false);
    expect(thisCrawlOnPath(windows(script), { Path: `${tools};${npm}` })).toBe(false);
    const otherNpm = folder('other-npm');
    windowsGlobal(otherNpm);
    expect(thisCrawlOnPath(windows(script), { Path: `${otherNpm};${npm}` })).toBe(false);
  });

  it('beside npm\'s shims, anything else cmd or PowerShell would run as crawl (PATHEXT\'s .js, another package\'s crawl.cmd): not found', () => {
    const withScript = folder('npm');
    const script = windowsGlobal(withScript);
    file(join(withScript, 'crawl.js'), false);
    expect(thisCrawlOnPath(windows(script), { Path: withScript })).toBe(false);
    // The extensions cmd tries are PATHEXT's: without .JS among them, crawl.js is not a crawl.
    expect(thisCrawlOnPath(windows(script), { Path: withScript, PATHEXT: '.COM;.EXE;.BAT;.CMD' })).toBe(true);

    const forced = folder('npm');
    const ours = windowsGlobal(forced, ['crawl.ps1']);
    // `npm install -g --force` of another package whose bin is also named crawl: its shim, our package.
    const other = folder('other');
    windowsGlobal(other, ['crawl.cmd'], 'other-crawler');
    writeFileSync(join(forced, 'crawl.cmd'), readFileSync(join(other, 'crawl.cmd')));
    expect(thisCrawlOnPath(windows(ours), { Path: forced })).toBe(false);
  });

  it('a clone run as node bin\\crawl.js while an installed crawl is on Path: not found (that is another crawl)', () => {
    const npm = folder('npm');
    windowsGlobal(npm);
    const script = file(join(folder('crawl'), 'bin', 'crawl.js'), false);
    expect(thisCrawlOnPath(windows(script), { Path: npm })).toBe(false);
  });

  it('the package below a folder with no shim: passed over', () => {
    const bare = folder('no-shims');
    const script = windowsGlobal(bare, []);
    expect(thisCrawlOnPath(windows(script), { Path: bare })).toBe(false);
  });
});
