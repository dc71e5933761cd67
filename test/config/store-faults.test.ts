// Local faults of the config store: a corrupt config.json, a config folder that cannot be used,
// and what the file holds beside crawl's own settings. Whatever happens: exit 1 with a message
// naming the file and the fix, and the user's file exactly as it was.
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, waitFor } from '../support/harness.js';
import { calls, fullKeysIn, keyStatus } from '../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
let n = 0;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-local-config-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

/** A config folder of its own holding `text` as config.json. */
function folderWith(text: string): { dir: string; file: string } {
  const dir = join(tmp.dir, `cfg-${++n}`);
  mkdirSync(dir, { mode: 0o700 });
  const file = join(dir, 'config.json');
  writeFileSync(file, text, { mode: 0o600 });
  return { dir, file };
}

const KEY_LINE = /^crk_[A-Za-z0-9]{20,}\n$/;
const fixHint = (file: string): string => `hint: fix it by hand or move it aside (mv ${file} ${file}.bak) and run \`crawl auth login\` again\n`;

const SHAPES = {
  'invalid JSON': { text: '{"profiles": {"default": {"base-url": "https://a.example/",', says: 'is not valid JSON' },
  'a JSON array': { text: '[{"profiles": {}}]\n', says: 'does not hold a JSON object' },
  'profiles of the wrong type': { text: '{"profiles": ["default"]}\n', says: ': "profiles" is not an object' },
  'a profile of the wrong type': { text: '{"profiles": {"default": "https://a.example/"}}\n', says: ': profile "default" is not an object' },
} as const;
type Shape = keyof typeof SHAPES;

interface Case {
  args: string[];
  /** Extra environment: most need the base URL from outside, since the file cannot give it. */
  env?: 'base' | 'base+key';
  input?: string;
}
const READERS: Record<string, Case> = {
  'config list': { args: ['config', 'list'] },
  'config get': { args: ['config', 'get', 'base-url'] },
  'auth status': { args: ['auth', 'status'] },
  'auth token': { args: ['auth', 'token'] },
  'job status': { args: ['job', 'status', 'some-job'], env: 'base' },
  'keys list': { args: ['keys', 'list'], env: 'base' },
};
const WRITERS: Record<string, Case> = {
  'config set': { args: ['config', 'set', 'base-url', 'https://b.example'] },
  'config unset': { args: ['config', 'unset', 'base-url'] },
  'auth login --with-key': { args: ['auth', 'login', '--with-key'], env: 'base', input: 'KEY' },
  'auth logout': { args: ['auth', 'logout'] },
  'keys create --save': { args: ['keys', 'create', 'saved', '--save'], env: 'base+key' },
  'keys rotate': { args: ['keys', 'rotate', '--yes'], env: 'base' },
};

const matrix: Array<[Shape, string, Case]> = [
  ...Object.entries({ ...READERS, ...WRITERS }).map(([name, c]) => ['invalid JSON', name, c] as [Shape, string, Case]),
  ...(['a JSON array', 'profiles of the wrong type', 'a profile of the wrong type'] as const).flatMap((shape) =>
    // Every shape goes through the same check: one reader and the two writers that make keys.
    ['config list', 'keys create --save', 'keys rotate'].map(
      (name) => [shape, name, { ...READERS, ...WRITERS }[name] as Case] as [Shape, string, Case],
    ),
  ),
];

describe('a corrupt config.json', () => {
  it.concurrent.for(matrix)('%s, `crawl %s`: exit 1 naming the file and the fix; the file unchanged, byte for byte', async ([shape, , c], { expect }) => {
    const { dir, file } = folderWith(SHAPES[shape].text);
    const before = readFileSync(file);
    const env: Record<string, string | undefined> = { CRAWL_CONFIG_DIR: dir, CRAWL_API_KEY: undefined, CRAWL_BASE_URL: undefined };
    if (c.env) env.CRAWL_BASE_URL = fx.sandbox.url;
    // keys create --save: the key in use comes from the environment, so only --save needs the file.
    if (c.env === 'base+key') env.CRAWL_API_KEY = fx.sandbox.key;
    const mark = fx.sandbox.requests.length;
    const r = await runCli(c.args, { env, ...(c.input ? { input: fx.sandbox.key + '\n' } : {}) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`crawl: config file ${file}${SHAPES[shape].says.startsWith(':') ? '' : ' '}${SHAPES[shape].says}\n${fixHint(file)}`);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(['config.json']);
    // Refused before anything else: no key created, nothing revoked, and login asked nothing of the service.
    const mine = calls(fx.sandbox, mark).filter((q) => !q.startsWith('GET /api/crawl/some-job'));
    expect(mine.filter((q) => !q.startsWith('GET '))).toEqual([]);
    if (c.args[0] === 'auth' || c.args[0] === 'keys') expect(mine).toEqual([]);
  });

  it.concurrent('keys rotate with CRAWL_API_KEY and --output-file does not need the config: it rotates, the corrupt file untouched', async ({ expect }) => {
    // A sandbox of its own: the cases above check that they made no request of the shared one.
    const own = await sandboxFixture({ seed: false });
    try {
      const { dir, file } = folderWith(SHAPES['invalid JSON'].text);
      const before = readFileSync(file);
      const old = own.sandbox.addKey('from-env');
      const out = join(dir, '..', `rotated-${n}.key`);
      const r = await runCli(['keys', 'rotate', '--yes', '--output-file', out], {
        env: { CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: own.sandbox.url, CRAWL_API_KEY: old.key },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(await keyStatus(own.sandbox, readFileSync(out, 'utf8').trim())).toBe(200);
      expect(await keyStatus(own.sandbox, old.key)).toBe(401);
      expect(readFileSync(file).equals(before)).toBe(true);
    } finally {
      await own.close();
    }
  });
});

describe('a config.json that turns corrupt while a key is being made', () => {
  // The POST is held; meanwhile the user (or an editor) breaks the file. The key the service has
  // made must reach the user all the same, and the broken file is not "repaired" by overwriting it.
  const breakDuringPost = (file: string, mark: number) => () => {
    void waitFor(() => calls(fx.sandbox, mark).includes('POST /api/keys'), 10_000, 'the POST').then(() =>
      writeFileSync(file, SHAPES['invalid JSON'].text),
    );
  };

  it('keys create --save: the key is printed (its only copy), exit 1 naming the file; the file unchanged', async () => {
    const { dir, file } = folderWith(JSON.stringify({ profiles: { default: { 'base-url': fx.sandbox.url } } }));
    fx.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'latency', ms: 300, times: 1 });
    const mark = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'create', 'late', '--save'], {
      env: { CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: undefined, CRAWL_API_KEY: fx.sandbox.key },
      onSpawn: breakDuringPost(file, mark),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(KEY_LINE);
    expect(r.stderr).toContain(`the key was created, but config file ${file} is not valid JSON; the key on stdout is its only copy\n`);
    expect(r.stderr).toContain('hint: store it with `crawl auth login --with-key`');
    expect(fullKeysIn(r.stderr)).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe(SHAPES['invalid JSON'].text);
    expect(await keyStatus(fx.sandbox, r.stdout.trim())).toBe(200);
  });

  it('keys rotate: the new key is printed, the old one stays active, exit 1; the file unchanged', async () => {
    const old = fx.sandbox.addKey('ci');
    const { dir, file } = folderWith(JSON.stringify({ profiles: { default: { 'base-url': fx.sandbox.url, 'api-key': old.key } } }));
    fx.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'latency', ms: 300, times: 1 });
    const mark = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes'], {
      env: { CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: undefined, CRAWL_API_KEY: undefined },
      onSpawn: breakDuringPost(file, mark),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(KEY_LINE);
    expect(r.stderr).toMatch(new RegExp(`step 4 of 5 \\(store the new key in the config file .*\\): config file ${file} is not valid JSON\\.`));
    expect(r.stderr).toMatch(/printed on stdout: it is its only copy/);
    expect(fullKeysIn(r.stderr)).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe(SHAPES['invalid JSON'].text);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    expect(await keyStatus(fx.sandbox, r.stdout.trim())).toBe(200);
  });
});

describe('a config folder that cannot be used', () => {
  const READ_HINT = 'hint: check the permissions of the file and its folder, or point CRAWL_CONFIG_DIR elsewhere\n';

  it.concurrent('the folder is a regular file (ENOTDIR): reads and writes exit 1 naming it; the file untouched', async ({ expect }) => {
    const blocker = join(tmp.dir, `blocker-${++n}`);
    writeFileSync(blocker, 'my notes\n');
    for (const dir of [blocker, join(blocker, 'crawl')]) {
      const env = { CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: undefined };
      const [list, status, set] = await Promise.all([
        runCli(['config', 'list'], { env }),
        runCli(['job', 'status', 'x'], { env }),
        runCli(['config', 'set', 'base-url', 'https://b.example'], { env }),
      ]);
      for (const r of [list, status, set]) {
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe(`crawl: cannot read config file ${join(dir, 'config.json')}: ${blocker} is not a folder\n${READ_HINT}`);
      }
    }
    expect(readFileSync(blocker, 'utf8')).toBe('my notes\n');
  });

  it.concurrent('config.json is a folder (EISDIR): exit 1 for reads and writes', async ({ expect }) => {
    const dir = join(tmp.dir, `isdir-${++n}`);
    mkdirSync(join(dir, 'config.json'), { recursive: true });
    const env = { CRAWL_CONFIG_DIR: dir };
    const [list, set, logout] = await Promise.all([
      runCli(['config', 'list'], { env }),
      runCli(['config', 'set', 'base-url', 'https://b.example'], { env }),
      runCli(['auth', 'logout'], { env }),
    ]);
    for (const r of [list, set, logout]) {
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`crawl: cannot read config file ${join(dir, 'config.json')}: it is a folder (EISDIR)\n${READ_HINT}`);
    }
    expect(statSync(join(dir, 'config.json')).isDirectory()).toBe(true);
  });

  it.concurrent('config.json is a FIFO or /dev/zero: refused at once, never read (no hang, no memory blow-up)', async ({ expect }) => {
    const dir = join(tmp.dir, `special-${++n}`);
    mkdirSync(dir);
    const fifo = join(dir, 'config.json');
    execFileSync('mkfifo', [fifo]);
    const zeroDir = join(tmp.dir, `zero-${n}`);
    mkdirSync(zeroDir);
    symlinkSync('/dev/zero', join(zeroDir, 'config.json'));
    const [fromFifo, fromZero, setZero] = await Promise.all([
      runCli(['config', 'list'], { env: { CRAWL_CONFIG_DIR: dir }, timeoutMs: 5000 }),
      runCli(['config', 'list'], { env: { CRAWL_CONFIG_DIR: zeroDir }, timeoutMs: 5000 }),
      runCli(['config', 'set', 'base-url', 'https://b.example'], { env: { CRAWL_CONFIG_DIR: zeroDir }, timeoutMs: 5000 }),
    ]);
    expect(fromFifo.timedOut).toBe(false);
    expect(fromFifo.code).toBe(1);
    expect(fromFifo.stderr).toMatch(new RegExp(`^crawl: config file ${fifo} is not a regular file\\nhint: fix it by hand or move it aside`));
    for (const r of [fromZero, setZero]) {
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^crawl: config file .*config\.json is not a regular file\n/);
    }
    expect(readlinkSync(join(zeroDir, 'config.json'))).toBe('/dev/zero');
  });
  // Permissions (a file the user may not read, a folder it may not write or enter) need a user
  // without root's powers: test/process/permissions.test.ts.
});

describe('what the file holds beside crawl\'s settings', () => {
  it.concurrent('fields this version does not know survive every write, at the top and in profiles', async ({ expect }) => {
    const doc = {
      editor: 'vim',
      profiles: {
        default: { 'base-url': 'https://a.example/', 'api-key': 'crk_' + 'x'.repeat(24), comment: 'laptop', timeout: 30 },
        other: { 'base-url': 'https://o.example/', future: { nested: [1, 2] } },
      },
    };
    const { dir, file } = folderWith(JSON.stringify(doc));
    const env = { CRAWL_CONFIG_DIR: dir };
    expect((await runCli(['config', 'set', 'base-url', 'https://b.example'], { env })).code).toBe(0);
    expect((await runCli(['auth', 'logout'], { env })).code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      editor: 'vim',
      profiles: {
        default: { 'base-url': 'https://b.example', comment: 'laptop', timeout: 30 },
        other: { 'base-url': 'https://o.example/', future: { nested: [1, 2] } },
      },
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it.concurrent('an empty config.json reads as no settings and can be written', async ({ expect }) => {
    const { dir, file } = folderWith('');
    const env = { CRAWL_CONFIG_DIR: dir };
    const list = await runCli(['config', 'list'], { env });
    expect(list.code).toBe(0);
    const set = await runCli(['config', 'set', 'base-url', 'https://b.example'], { env });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: { default: { 'base-url': 'https://b.example' } } });
  });

  it.concurrent('a config.json that is a symlink (a dotfiles repo) stays one: its target is updated', async ({ expect }) => {
    const { file: target } = folderWith(JSON.stringify({ profiles: {} }));
    const dir = join(tmp.dir, `link-${++n}`);
    mkdirSync(dir);
    symlinkSync(target, join(dir, 'config.json'));
    const r = await runCli(['config', 'set', 'base-url', 'https://b.example'], { env: { CRAWL_CONFIG_DIR: dir } });
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(join(dir, 'config.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toEqual({ profiles: { default: { 'base-url': 'https://b.example' } } });
  });
});
