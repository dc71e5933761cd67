// `crawl sandbox`: the bootstrap key stays the same on a port from one start to the next (so a
// saved login keeps working), is new for --port 0, and is CRAWL_SANDBOX_KEY's when that is set;
// a busy port says what holds it and a fix that works. In this process: each sandbox stops on
// the run's interrupt, as Ctrl-C stops it.
import { mkdirSync, statSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterruptedError } from '../../../src/errors.js';
import type { TestStreams } from '../../../src/io/test-streams.js';
import type { Platform } from '../../../src/platform/platform.js';
import { fakeClock } from '../../support/fake-clock.js';
import { crawl, type CrawlResult, TEST_HOME, tempDir, waitFor } from '../../support/harness.js';
import { posixGlobal, projectInstall, scriptFile, windowsGlobal } from '../../support/installs.js';
import { sandboxFixture } from '../../support/sandbox.js';
import { shellQuote } from '../../../src/text/shell.js';
import { VERSION } from '../../../src/version.js';

let tmp: { dir: string; cleanup: () => void };
beforeAll(() => {
  tmp = tempDir('crawl-sandbox-key-');
});
afterAll(() => tmp.cleanup());

/** A port nothing listens on just now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

interface Started {
  url: string;
  key: string;
  /** Stops it (as Ctrl-C does) and gives the run's result. */
  stop(): Promise<CrawlResult>;
}

/** Starts `crawl sandbox <args>` (on `platform`, this system by default) and resolves once it printed its URL and key. */
async function start(args: string[], env: Record<string, string>, platform?: Platform): Promise<Started> {
  const controller = new AbortController();
  let streams: TestStreams | undefined;
  const done = crawl(['sandbox', ...args], { env, signal: controller.signal, onStreams: (s) => void (streams = s), ...(platform === undefined ? {} : { platform }) });
  await waitFor(() => /Bootstrap key: \S+\n/.test(streams?.stdoutText() ?? ''), 10_000, 'the start-up lines');
  const out = streams?.stdoutText() ?? '';
  return {
    url: /Sandbox listening on (\S+)/.exec(out)?.[1] ?? '',
    key: /Bootstrap key: (\S+)/.exec(out)?.[1] ?? '',
    stop: async () => {
      controller.abort(new InterruptedError(130));
      return done;
    },
  };
}

const jobStatus = (url: string, key: string) => crawl(['job', 'demo-small', '--jq', '.job.status'], { env: { CRAWL_BASE_URL: url, CRAWL_API_KEY: key } });

describe('the bootstrap key', () => {
  it('is the same at every start on a port: a key saved against the sandbox still works after a restart', async () => {
    const env = { XDG_STATE_HOME: join(tmp.dir, 'state') };
    const port = String(await freePort());
    const first = await start(['--port', port], env);
    const firstRun = await first.stop();
    expect(firstRun.stderr).toContain(`The key stays the same at every start on port ${port} (kept in ${join(env.XDG_STATE_HOME, 'crawl', 'sandbox-keys.json')}): a saved login keeps working.`);
    const again = await start(['--port', port], env);
    try {
      expect(again.key).toBe(first.key);
      const r = await jobStatus(again.url, first.key);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('completed\n');
    } finally {
      await again.stop();
    }
    expect(statSync(join(env.XDG_STATE_HOME, 'crawl', 'sandbox-keys.json')).mode & 0o777).toBe(0o600);
    // Another port has a key of its own.
    const other = await start(['--port', String(await freePort())], env);
    await other.stop();
    expect(other.key).not.toBe(first.key);
    expect(other.key).toMatch(/^crk_[A-Za-z0-9]{40}$/);
  });

  it('is new at each start with --port 0, and said so', async () => {
    const env = { XDG_STATE_HOME: join(tmp.dir, 'state-0') };
    const a = await start(['--port', '0'], env);
    const ra = await a.stop();
    const b = await start(['--port', '0'], env);
    await b.stop();
    expect(a.key).not.toBe(b.key);
    expect(ra.stderr).toContain('A new key at every start on a random port (--port 0); CRAWL_SANDBOX_KEY sets one.');
  });

  it('is CRAWL_SANDBOX_KEY when it is set, and nothing is kept', async () => {
    const env = { XDG_STATE_HOME: join(tmp.dir, 'state-env'), CRAWL_SANDBOX_KEY: `crk_${'E'.repeat(40)}` };
    const s = await start(['--port', String(await freePort())], env);
    const r = await s.stop();
    expect(s.key).toBe(env.CRAWL_SANDBOX_KEY);
    expect(r.stderr).toContain("The key is CRAWL_SANDBOX_KEY's.");
  });

  it('CRAWL_SANDBOX_KEY that no command would send is refused before the sandbox starts, without repeating it', async () => {
    const refused = [
      ['crk_has space', 'contains a space (U+0020)'],
      [`crk_${'x'.repeat(20)}\u00e9`, 'contains a character that is not plain ASCII (U+00E9)'],
      ['bad', "does not start with crk_ and go on, as the service's keys do"],
      ['crk_', "does not start with crk_ and go on, as the service's keys do"],
    ];
    for (const [key = '', defect = ''] of refused) {
      const r = await crawl(['sandbox', '--port', '0'], { env: { XDG_STATE_HOME: join(tmp.dir, 'state-bad'), CRAWL_SANDBOX_KEY: key } });
      expect(r.code, key).toBe(2);
      expect(r.stderr.split('\n')[0], key).toBe(`crawl: CRAWL_SANDBOX_KEY ${defect}: no command would send it`);
      expect(r.stderr, key).toContain('hint: give crk_ and letters or digits');
      if (key !== 'crk_') expect(r.stderr).not.toContain(key);
      expect(r.stdout).toBe('');
    }
  });

  it('--help says how the key lasts, and names CRAWL_SANDBOX_KEY', async () => {
    const r = await crawl(['sandbox', '--help'], { env: {} });
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('The bootstrap key:');
    expect(text).toContain('On a given port it is the same key at every start');
    expect(text).toContain('CRAWL_SANDBOX_KEY=<key> makes the sandbox use that key instead');
  });
});

describe('a busy port', () => {
  it('held by a sandbox: says so, and to use it', async () => {
    const fx = await sandboxFixture({ seed: false });
    try {
      const port = new URL(fx.sandbox.url).port;
      const r = await crawl(['sandbox', '--port', port], { env: {} });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `crawl: cannot start the sandbox on 127.0.0.1:${port}: the port is already in use, by a crawl sandbox\n` +
          `hint: use that one (export CRAWL_BASE_URL=http://127.0.0.1:${port} and the key it printed), restore its demo jobs with \`crawl sandbox --reset --port ${port}\`, or stop it (Ctrl-C where it runs) and start again\n`,
      );
    } finally {
      await fx.close();
    }
  });

  it('held by another program: a free port to start on, and that command works', async () => {
    // Reads what comes and answers nothing, as a program that is no HTTP server would: once the
    // question whether it is a sandbox has reached it, the wait for an answer runs out (2 s on
    // the run's clock).
    const clock = fakeClock();
    const holder = createServer((socket) => socket.on('error', () => undefined).once('data', () => void clock.advance(2_000)).resume());
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const r = await crawl(['sandbox', '--port', String(port)], { env: {}, clock });
      expect(r.code).toBe(1);
      const [message = '', hint = ''] = r.stderr.trim().split('\n');
      expect(message).toBe(`crawl: cannot start the sandbox on 127.0.0.1:${port}: the port is already in use, by another program`);
      expect(hint).not.toContain('--port 0');
      const suggested = /`crawl sandbox --port (\d+)`/.exec(hint)?.[1];
      expect(suggested, hint).toBeDefined();
      expect(hint).toContain(`then export CRAWL_BASE_URL=http://127.0.0.1:${suggested}; or stop the program that holds ${port}`);
      const s = await start(['--port', String(suggested)], { XDG_STATE_HOME: join(tmp.dir, 'state-busy') });
      await s.stop();
      expect(s.url).toBe(`http://127.0.0.1:${suggested}`);
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });
});

describe('the lines to run in another shell start crawl as this sandbox was started', () => {
  // Each case is a real layout on disk and a PATH of real folders: what a shell elsewhere finds.
  let n = 0;
  const folder = (name: string): string => {
    const dir = join(tmp.dir, `layout-${++n}`, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  const posixLines = (url: string, key: string, named: string) => `\nUse it from another shell:\n  export CRAWL_BASE_URL=${url} CRAWL_API_KEY=${key}\n  ${named} job demo-running\n`;
  const windowsLines = (url: string, key: string, named: string) => `\nUse it from another shell:\n  $env:CRAWL_BASE_URL = '${url}'; $env:CRAWL_API_KEY = '${key}'\n  ${named} job demo-running\n`;

  it.each([
    ['a global install, its link on PATH', () => {
      const { bin, link } = posixGlobal(folder('usr'));
      return { os: 'linux', script: link, env: { PATH: `${bin}:/usr/bin:/bin` }, named: 'crawl' };
    }],
    ['a project\'s npm script (node_modules/.bin on the run\'s PATH only)', () => {
      const { dotBin, link } = projectInstall(folder('proj'));
      return { os: 'linux', script: link, env: { PATH: `${dotBin}:/usr/bin:/bin`, npm_command: 'run-script' }, named: `npx @webcrawl/cli@${VERSION}` };
    }],
    ['npx @webcrawl/cli (npm_command=exec), from npx\'s cache', () => {
      const { dotBin, link } = projectInstall(folder('_npx'));
      return { os: 'linux', script: link, env: { PATH: `${dotBin}:/usr/bin:/bin`, npm_command: 'exec' }, named: `npx @webcrawl/cli@${VERSION}` };
    }],
    ['a clone, no crawl on PATH', () => {
      const script = scriptFile(join(folder("ada's crawl"), 'bin', 'crawl.js'));
      return { os: 'linux', script, env: { PATH: '/usr/bin:/bin' }, named: shellQuote('node') + ' ' + shellQuote(script) };
    }],
  ] as Array<[string, () => { os: NodeJS.Platform; script: string; env: Record<string, string>; named: string }]>)('POSIX, %s', async (_, layout) => {
    const { os, script, env, named } = layout();
    const s = await start(['--port', '0'], env, { os, home: TEST_HOME, script });
    const r = await s.stop();
    expect(r.stderr).toContain(posixLines(s.url, s.key, named));
    expect(r.stderr).toContain(`\nBack to how they started: ${named} sandbox --reset (from another shell, with the same CRAWL_BASE_URL)\n`);
    expect(r.stderr).not.toContain('npx crawl');
  });

  it.each([
    ['npm\'s global folder on Path (crawl.cmd, crawl.ps1)', () => {
      const npm = folder('npm');
      return { script: windowsGlobal(npm), env: { Path: npm }, named: 'crawl' };
    }],
    ['a project\'s install', () => ({ script: projectInstall(folder('proj')).script, env: { Path: folder('System32') }, named: `npx "@webcrawl/cli@${VERSION}"` })],
    ['a clone in a folder with a space', () => {
      const script = 'C:\\Users\\Ada Lovelace\\crawl\\bin\\crawl.js';
      return { script, env: {}, named: `node "${script}"` };
    }],
    ['a clone in a folder named in letters beyond ASCII', () => {
      const script = 'C:\\Users\\José Núñez\\crawl\\bin\\crawl.js';
      return { script, env: {}, named: `node "${script}"` };
    }],
    ['a clone in a folder whose name PowerShell would expand in double quotes', () => ({ script: 'C:\\Users\\ad$min\\crawl\\bin\\crawl.js', env: {}, named: 'node <path of bin\\crawl.js>' })],
  ] as Array<[string, () => { script: string; env: Record<string, string>; named: string }]>)('Windows, %s: PowerShell\'s lines', async (_, layout) => {
    const { script, env, named } = layout();
    // A key of the user's in the environment: only the sandbox's own key is shown.
    const theirs = `crk_${'U'.repeat(40)}`;
    const s = await start(['--port', '0'], { ...env, CRAWL_API_KEY: theirs }, { os: 'win32', home: TEST_HOME, script });
    const r = await s.stop();
    expect(r.stderr).toContain(windowsLines(s.url, s.key, named));
    expect(`${r.stdout}${r.stderr}`).not.toContain(theirs);
    expect(r.stderr).toContain(`\nBack to how they started: ${named} sandbox --reset (from another shell, with the same CRAWL_BASE_URL)\n`);
    expect(r.stderr).not.toContain('export ');
  });
});

describe('the lines to run in another shell follow the shell in use on Windows, not only the system', () => {
  const script = 'C:\\Users\\Ada Lovelace\\crawl\\bin\\crawl.js';
  const on = { os: 'win32' as const, home: TEST_HOME, script };

  it('Git Bash or MSYS2 (MSYSTEM set): bash\'s lines, where `$env:X` would expand to nothing', async () => {
    const s = await start(['--port', '0'], { MSYSTEM: 'MINGW64' }, on);
    const r = await s.stop();
    expect(r.stderr).toContain(`\nUse it from another shell:\n  export CRAWL_BASE_URL=${s.url} CRAWL_API_KEY=${s.key}\n  node ${shellQuote(script)} job demo-running\n`);
    expect(r.stderr).not.toContain('$env:');
  });

  it('a POSIX terminal named (TERM) but no MSYSTEM: the shell cannot be told, so a line for each, marked by a comment both read', async () => {
    const s = await start(['--port', '0'], { TERM: 'xterm-256color' }, on);
    const r = await s.stop();
    expect(r.stderr).toContain(
      `\nUse it from another shell:\n  export CRAWL_BASE_URL=${s.url} CRAWL_API_KEY=${s.key}   # bash\n  $env:CRAWL_BASE_URL = '${s.url}'; $env:CRAWL_API_KEY = '${s.key}'   # PowerShell\n  node "${script}" job demo-running\n`,
    );
  });
});

describe('a busy port, in the words of the shell and the crawl of this run', () => {
  it('--reset with no sandbox there, run from a clone: the hint starts one with `node <script> sandbox`', async () => {
    const port = await freePort();
    const script = scriptFile(join(tmp.dir, 'reset clone', 'bin', 'crawl.js'));
    const r = await crawl(['sandbox', '--reset', '--port', String(port)], { env: { PATH: '/usr/bin:/bin' }, platform: { os: 'linux', home: TEST_HOME, script } });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(`crawl: no sandbox answers at http://127.0.0.1:${port}: connection refused (start one with \`node '${script}' sandbox\`)\n`);
  });

  it('held by a sandbox, started from a clone: `node <script> sandbox --reset --port N`', async () => {
    const fx = await sandboxFixture({ seed: false });
    try {
      const port = new URL(fx.sandbox.url).port;
      const script = scriptFile(join(tmp.dir, 'busy clone', 'bin', 'crawl.js'));
      const r = await crawl(['sandbox', '--port', port], { env: { PATH: '/usr/bin:/bin' }, platform: { os: 'linux', home: TEST_HOME, script } });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`\nhint: use that one (export CRAWL_BASE_URL=http://127.0.0.1:${port} and the key it printed), restore its demo jobs with \`node '${script}' sandbox --reset --port ${port}\`, or stop it`);
    } finally {
      await fx.close();
    }
  });

  it('held by another program, on Windows from a project\'s install: `npx "@webcrawl/cli@<version>" sandbox --port N`, then $env:', async () => {
    // Hangs up at once, so the check for a sandbox there ends without waiting out its bound.
    const holder = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const { script } = projectInstall(join(tmp.dir, 'busy project'));
      // A key of its own: a Windows folder to keep one in would be no folder here.
      const r = await crawl(['sandbox', '--port', String(port)], { env: { CRAWL_SANDBOX_KEY: `crk_${'W'.repeat(40)}` }, platform: { os: 'win32', home: TEST_HOME, script } });
      expect(r.code).toBe(1);
      const at = VERSION.replace(/\./g, '\\.');
      const suggested = new RegExp(`\`npx "@webcrawl/cli@${at}" sandbox --port (\\d+)\`, then \\$env:CRAWL_BASE_URL = 'http://127\\.0\\.0\\.1:(\\d+)'; or stop the program that holds (\\d+)\\n$`).exec(r.stderr);
      expect(suggested, r.stderr).not.toBeNull();
      expect(suggested?.[2]).toBe(suggested?.[1]);
      expect(suggested?.[3]).toBe(String(port));
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });
});
