// What crawl takes from the local machine before it sends anything: a key that cannot be a bearer
// token, a config file or folder that other users could change, the config lock replaced by
// something that is not a file, and where the config folder is. Each is refused at once with one
// line naming the culprit and the fix, no request is made, and the user's files stay as they were.
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envOf, folderWith as privateFolderWith } from '../support/settings.js';
import { shellQuote } from '../../src/text/shell.js';
import { runCli, tempDir } from '../support/harness.js';
import { findKey } from '../support/key-forms.js';
import { startHostile } from '../support/hostile-server.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
let n = 0;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-local-trust-');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

const isRoot = process.getuid?.() === 0;

/** A private folder of its own (0700) holding `doc` as config.json (0600). */

const folderWith = (doc: unknown, mode = 0o700): { dir: string; file: string } => privateFolderWith(tmp.dir, doc, mode);

/** A sandbox that only the test using it talks to, so "no request was made" can be checked. */
async function withOwnSandbox<T>(fn: (own: SandboxFixture) => Promise<T>): Promise<T> {
  const own = await sandboxFixture({ seed: false });
  try {
    return await fn(own);
  } finally {
    await own.close();
  }
}

// A key as the service issues them, split by one defect.
const HEAD = 'crk_HeadOfTheKey';
const TAIL = 'TailOfTheKey0123';
const brokenKey = (inside: string): string => HEAD + inside + TAIL;

const DEFECTS: Array<[string, string, string]> = [
  ['LF', '\n', 'a line break (LF, U+000A)'],
  ['CR', '\r', 'a line break (CR, U+000D)'],
  ['CRLF and a header', '\r\nX-Injected: 1', 'a line break (CR, U+000D)'],
  ['a tab', '\t', 'a tab (U+0009)'],
  ['ESC (a colour escape)', '\u001b[31m', 'a control character (U+001B)'],
  ['a space', ' ', 'a space (U+0020)'],
  ['DEL', '\u007f', 'a control character (U+007F)'],
  ['NEL (U+0085)', '\u0085', 'a control character (U+0085)'],
  ['a zero-width space', '\u200b', 'an invisible character (U+200B)'],
  ['a no-break space', '\u00a0', 'white space (U+00A0)'],
  ['a letter that is not ASCII', 'é', 'a character that is not plain ASCII (U+00E9)'],
];
// NUL cannot be passed through the environment (C strings end there), only stored in the file.
const STORED_DEFECTS: Array<[string, string, string]> = [...DEFECTS, ['NUL', '\u0000', 'a control character (U+0000)']];

function expectNoKeyIn(text: string): void {
  expect(text).not.toContain(HEAD);
  expect(text).not.toContain(TAIL);
}

describe('a key that cannot be sent', () => {
  const ENV_HINT = 'hint: set CRAWL_API_KEY to the key alone, exactly as it was issued\n';

  it.concurrent.for(DEFECTS)('in CRAWL_API_KEY, %s: exit 2 naming CRAWL_API_KEY and the character, no request', async ([, inside, says], { expect }) => {
    await withOwnSandbox(async (own) => {
      const r = await runCli(['job', 'status', 'some-job'], { env: envOf({ CRAWL_CONFIG_DIR: folderWith({}).dir, CRAWL_BASE_URL: own.sandbox.url, CRAWL_API_KEY: brokenKey(inside) }) });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`crawl: CRAWL_API_KEY contains ${says}; refusing to send it\n${ENV_HINT}`);
      expectNoKeyIn(r.stderr);
      expect(own.sandbox.requests).toEqual([]);
    });
  });

  it.concurrent.for(STORED_DEFECTS)('in the config file, %s: exit 2 naming the file and the profile, no request', async ([, inside, says], { expect }) => {
    await withOwnSandbox(async (own) => {
      const { dir, file } = folderWith({ profiles: { default: { 'base-url': own.sandbox.url, 'api-key': brokenKey(inside) } } });
      const before = readFileSync(file);
      const r = await runCli(['job', 'status', 'some-job'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `crawl: the API key of profile "default" in ${file} contains ${says}; refusing to send it\n` +
          'hint: store the key again with `crawl auth login --with-key < keyfile`\n',
      );
      expectNoKeyIn(r.stderr);
      expect(own.sandbox.requests).toEqual([]);
      expect(readFileSync(file).equals(before)).toBe(true);
    });
  });

  it.concurrent('every command that uses the key refuses it the same way, before any request', async ({ expect }) => {
    await withOwnSandbox(async (own) => {
      const { dir, file } = folderWith({
        profiles: { work: { 'base-url': own.sandbox.url, 'api-key': brokenKey('\r\nX-Injected: 1') } },
      });
      const env = envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_PROFILE: 'work' });
      const commands = [
        ['job', 'status', 'x'],
        ['job', 'watch', 'x'],
        ['job', 'pages', 'x'],
        ['job', 'cancel', 'x'],
        ['keys', 'list'],
        ['keys', 'create', 'n'],
        ['keys', 'revoke', 'key_1', '--yes'],
        ['keys', 'rotate', '--yes'],
        ['auth', 'token'],
        ['auth', 'status'],
      ];
      const results = await Promise.all(commands.map((args) => runCli(args, { env })));
      for (const [i, r] of results.entries()) {
        expect([commands[i], r.code]).toEqual([commands[i], 2]);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe(
          `crawl: the API key of profile "work" in ${file} contains a line break (CR, U+000D); refusing to send it\n` +
            'hint: store the key again with `crawl --profile work auth login --with-key < keyfile`\n',
        );
      }
      expect(own.sandbox.requests).toEqual([]);
    });
  });

  it.concurrent('spaces, tabs and line breaks around CRAWL_API_KEY are dropped; other characters around it are not', async ({ expect }) => {
    const env = (key: string) => envOf({ CRAWL_CONFIG_DIR: folderWith({}).dir, CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: key });
    const around = [`${fx.sandbox.key}\n`, `${fx.sandbox.key}\r\n`, ` \t${fx.sandbox.key}  `, `\n\n${fx.sandbox.key}\r`];
    const kept = await Promise.all(around.map((key) => runCli(['keys', 'list', '--json'], { env: env(key) })));
    for (const r of kept) {
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ success: true });
    }
    const [nbsp, bom] = await Promise.all([
      runCli(['keys', 'list'], { env: env(`\u00a0${fx.sandbox.key}`) }),
      runCli(['keys', 'list'], { env: env(`\ufeff${fx.sandbox.key}`) }),
    ]);
    expect([nbsp.code, bom.code]).toEqual([2, 2]);
    expect(nbsp.stderr).toMatch(/^crawl: CRAWL_API_KEY contains white space \(U\+00A0\); refusing to send it\n/);
    expect(bom.stderr).toMatch(/^crawl: CRAWL_API_KEY contains an invisible character \(U\+FEFF\); refusing to send it\n/);
    for (const r of [nbsp, bom]) expect(r.stderr).not.toContain(fx.sandbox.key);
  });

  it.concurrent('a bad key in CRAWL_API_KEY is refused even when the config holds a good one (no silent fallback)', async ({ expect }) => {
    const { dir } = folderWith({ profiles: { default: { 'base-url': fx.sandbox.url, 'api-key': fx.sandbox.key } } });
    const r = await runCli(['auth', 'token'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_API_KEY: brokenKey('\n') }) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^crawl: CRAWL_API_KEY contains a line break/);
  });

  it.concurrent('a bad stored key is shown as unusable by config get/list (nothing of it printed) and can be replaced or removed', async ({ expect }) => {
    const { dir, file } = folderWith({
      profiles: {
        default: { 'base-url': fx.sandbox.url, 'api-key': brokenKey('\u001b]0;pwned\u0007') },
        other: { 'base-url': fx.sandbox.url, 'api-key': brokenKey('\n') },
      },
    });
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const [get, list, listJson] = await Promise.all([
      runCli(['config', 'get', 'api-key'], { env }),
      runCli(['config', 'list'], { env, tty: true }),
      runCli(['config', 'list', '--json'], { env }),
    ]);
    expect(get.code).toBe(0);
    expect(get.stdout).toBe('(unusable: it contains a control character (U+001B))\n');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/api-key\s+\(unusable: it contains a control character \(U\+001B\)\)/);
    expect(JSON.parse(listJson.stdout)['api-key']).toBe('(unusable: it contains a control character (U+001B))');
    for (const r of [get, list, listJson]) {
      expectNoKeyIn(r.stdout + r.stderr);
      expect(r.stdout).not.toContain('\u001b');
    }
    // Replaced by a good key through login, and removed by logout: neither needs the bad key.
    const login = await runCli(['auth', 'login', '--with-key'], { env, input: fx.sandbox.key + '\n' });
    expect(login.code, login.stderr).toBe(0);
    const logout = await runCli(['auth', 'logout', '--profile', 'other'], { env });
    expect(logout.code, logout.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles).toEqual({
      default: { 'base-url': fx.sandbox.url, 'api-key': fx.sandbox.key },
      other: { 'base-url': fx.sandbox.url },
    });
    const status = await runCli(['job', 'status', 'nope'], { env });
    expect(status.code).toBe(3);
  });

  it.concurrent.for([
    ['ESC', '\u001b'],
    ['DEL', '\u007f'],
    ['NEL', '\u0085'],
    ['a zero-width space', '\u200b'],
  ] as Array<[string, string]>)('auth login --with-key, a key holding %s: exit 2, no request, nothing saved', async ([, inside], { expect }) => {
    await withOwnSandbox(async (own) => {
      const dir = join(tmp.dir, `login-${++n}`);
      const r = await runCli(['auth', 'login', '--with-key'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: own.sandbox.url }), input: brokenKey(inside) + '\n' });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^crawl: the API key contains .*; refusing to send it, and nothing was saved\n/);
      expectNoKeyIn(r.stderr);
      expect(own.sandbox.requests).toEqual([]);
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
    });
  });
});

describe('a key that cannot be sent is never stored', () => {
  // A service that hands out such a key (keys create --save): the config keeps what it had.
  it.concurrent.for([
    ['LF', '\n'],
    ['ESC', '\u001b[2J'],
    ['a space', ' '],
    ['a zero-width space', '\u200b'],
  ] as Array<[string, string]>)('keys create --save, the service\'s key holding %s: nothing stored, exit 1 saying why', async ([, inside], { expect }) => {
    const made = brokenKey(inside);
    const hostile = await startHostile({
      upstream: fx.sandbox.url,
      rules: [{ method: 'POST', path: '/api/keys', fault: { kind: 'respond', status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ success: true, key: made, prefix: HEAD, name: 'odd', warning: 'keep it' }) } }],
    });
    try {
      const { dir, file } = folderWith({ profiles: { default: { 'base-url': hostile.url } } });
      const before = readFileSync(file);
      const r = await runCli(['keys', 'create', 'odd', '--save'], { env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_API_KEY: fx.sandbox.key }) });
      expect(r.code).toBe(1);
      // Refused where the service's answer is read, before any attempt to store it.
      expect(r.stderr).toContain('the service returned an unusable key named "odd"');
      expect(r.stderr).not.toContain(made);
      expect(readFileSync(file).equals(before)).toBe(true);
      expect(readdirSync(dir)).toEqual(['config.json']);
    } finally {
      await hostile.close();
    }
  });
});

describe('a config file that other users could change (as ssh refuses its own)', () => {
  const fileHint = (file: string): string => `hint: only you should be able to change it: \`chmod 600 ${file}\`\n`;
  const folderHint = (dir: string): string => `hint: only you should be able to change it: \`chmod go-w ${dir}\`\n`;

  /** Reads (with and without the key) and a write: each refused the same way, the file untouched. */
  async function expectRefused(dir: string, file: string, line: string, hint: string): Promise<void> {
    const before = readFileSync(file);
    const modeBefore = statSync(file).mode;
    await withOwnSandbox(async (own) => {
      const env = envOf({ CRAWL_CONFIG_DIR: dir });
      const results = await Promise.all([
        runCli(['config', 'get', 'base-url'], { env }),
        runCli(['job', 'status', 'x'], { env: { ...env, CRAWL_BASE_URL: own.sandbox.url } }),
        runCli(['auth', 'token'], { env }),
        runCli(['config', 'set', 'base-url', 'https://other.example'], { env }),
        runCli(['auth', 'logout'], { env }),
      ]);
      for (const r of results) {
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe(`crawl: refusing to use config file ${file}: ${line}\n${hint}`);
        expectNoKeyIn(r.stderr);
      }
      expect(own.sandbox.requests).toEqual([]);
    });
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(statSync(file).mode).toBe(modeBefore);
    expect(readdirSync(dir)).toEqual(['config.json']);
  }

  const doc = { profiles: { default: { 'base-url': 'https://a.example', 'api-key': HEAD + TAIL } } };

  it.concurrent.for(['0666', '0620', '0602', '0660', '0622'])('the file with mode %s: refused for reads and writes, exit 1, the chmod to run', async (octal, { expect }) => {
    const mode = parseInt(octal, 8);
    const { dir, file } = folderWith(doc);
    chmodSync(file, mode);
    await expectRefused(dir, file, `it is writable by other users (mode ${octal})`, fileHint(file));
    expect(statSync(file).mode & 0o7777).toBe(mode);
  });

  it.concurrent.for(['0777', '0770', '0775', '0757', '0730'])('its folder with mode %s: refused for reads and writes, exit 1, the chmod to run', async (octal, { expect }) => {
    const mode = parseInt(octal, 8);
    const { dir, file } = folderWith(doc, mode);
    await expectRefused(dir, file, `its folder ${dir} is writable by other users (mode ${octal})`, folderHint(dir));
    expect(statSync(dir).mode & 0o7777).toBe(mode);
  });

  it.concurrent('a folder others could write, no config.json yet: a write is refused and creates nothing', async ({ expect }) => {
    const dir = join(tmp.dir, `open-${++n}`);
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const file = join(dir, 'config.json');
    const r = await runCli(['config', 'set', 'base-url', 'https://a.example'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`crawl: refusing to use config file ${file}: its folder ${dir} is writable by other users (mode 0777)\n${folderHint(dir)}`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it.concurrent('a config.json linked into a folder others could write (the target\'s folder): refused, naming that folder', async ({ expect }) => {
    const { dir: targetDir, file: target } = folderWith(doc, 0o777);
    const dir = join(tmp.dir, `linked-${++n}`);
    mkdirSync(dir, { mode: 0o700 });
    const file = join(dir, 'config.json');
    symlinkSync(target, file);
    const r = await runCli(['config', 'get', 'base-url'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`crawl: refusing to use config file ${file}: its folder ${targetDir} is writable by other users (mode 0777)\n${folderHint(targetDir)}`);
  });

  it.concurrent('a sticky world-writable folder (like /tmp) holding a 0600 file of ours, or a 0644 file: accepted, read and written', async ({ expect }) => {
    const { dir, file } = folderWith(doc, 0o1777);
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const get = await runCli(['config', 'get', 'base-url'], { env });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toBe('https://a.example\n');
    const set = await runCli(['config', 'set', 'base-url', 'https://b.example'], { env });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default['base-url']).toBe('https://b.example');
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const { dir: readable, file: shared } = folderWith(doc, 0o755);
    chmodSync(shared, 0o644);
    const read = await runCli(['config', 'get', 'base-url'], { env: envOf({ CRAWL_CONFIG_DIR: readable }) });
    expect(read.code, read.stderr).toBe(0);
  });

  // Needs root to give a file away. As another user (`nobody`): test/process/permissions.test.ts.
  it.concurrent('a file or folder owned by another user: refused, exit 1, the chown to run', async ({ expect }) => {
    if (!isRoot) {
      const r = await runCli(['config', 'get', 'base-url'], { env: envOf({ CRAWL_CONFIG_DIR: '/etc' }) });
      expect(r.stderr).not.toContain('refusing to use config file');
      return;
    }
    const { dir, file } = folderWith(doc);
    chownSync(file, 65534, 65534);
    await expectRefused(dir, file, 'it is owned by another user (uid 65534, mode 0600)', `hint: make it yours with \`chown 0 ${file}\`, or set CRAWL_CONFIG_DIR to a folder of your own\n`);

    const { dir: theirs, file: inside } = folderWith(doc);
    chownSync(theirs, 65534, 65534);
    await expectRefused(theirs, inside, `its folder ${theirs} is owned by another user (uid 65534, mode 0700)`, `hint: make it yours with \`chown 0 ${theirs}\`, or set CRAWL_CONFIG_DIR to a folder of your own\n`);
  });

  it.concurrent('a path that needs quoting is quoted in the hint, so it pastes as itself', async ({ expect }) => {
    const dir = join(tmp.dir, `it's $(here) ${++n}`);
    mkdirSync(dir, { mode: 0o700 });
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify(doc), { mode: 0o600 });
    chmodSync(file, 0o666);
    const r = await runCli(['config', 'get', 'base-url'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(r.code).toBe(1);
    const quoted = shellQuote(file);
    expect(r.stderr.split('\n')[1]).toBe(`hint: only you should be able to change it: \`chmod 600 ${quoted}\``);
    // The suggested command, run by a shell, fixes exactly that file.
    execFileSync('bash', ['-c', `chmod 600 ${quoted}`]);
    const again = await runCli(['config', 'get', 'base-url'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
    expect(again.code, again.stderr).toBe(0);
  });
});

describe('config set base-url: get answers what set stored', () => {
  it.concurrent.for([
    'https://crawl.example.com',
    'https://crawl.example.com/',
    'https://crawl.example.com/api/v1',
    'https://crawl.example.com/api/v1/',
    'http://127.0.0.1:8787',
    'https://[::1]:8443/x',
  ])('%s comes back unchanged, in plain and --json output', async (value, { expect }) => {
    const { dir, file } = folderWith({});
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const set = await runCli(['config', 'set', 'base-url', value, '--json'], { env });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ profile: 'default', key: 'base-url', value });
    const [get, getJson] = await Promise.all([runCli(['config', 'get', 'base-url'], { env }), runCli(['config', 'get', 'base-url', '--json'], { env })]);
    expect(get.stdout).toBe(value + '\n');
    expect(JSON.parse(getJson.stdout).value).toBe(value);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default['base-url']).toBe(value);
  });

  it.concurrent('white space around the value is trimmed', async ({ expect }) => {
    const { dir } = folderWith({});
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const set = await runCli(['config', 'set', 'base-url', '  https://crawl.example.com/x \n'], { env });
    expect(set.stderr).toBe('Set base-url of profile "default" to https://crawl.example.com/x\n');
    expect((await runCli(['config', 'get', 'base-url'], { env })).stdout).toBe('https://crawl.example.com/x\n');
  });

  it.concurrent('is still validated first: not a URL, another scheme, credentials: exit 2, the file untouched', async ({ expect }) => {
    const { dir, file } = folderWith({ profiles: { default: { 'base-url': 'https://kept.example' } } });
    const before = readFileSync(file);
    const env = envOf({ CRAWL_CONFIG_DIR: dir });
    const results = await Promise.all(
      ['crawl.example.com', 'ftp://crawl.example.com', 'https://user:pw@crawl.example.com', ''].map((v) => runCli(['config', 'set', 'base-url', v], { env })),
    );
    for (const r of results) {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^crawl: (invalid base URL|the base URL must not contain credentials)/);
    }
    expect(results[2]?.stderr).not.toContain('pw@');
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it.concurrent('a key pasted into the base URL is shown nowhere: not in the message, not in the hint, in whatever way the URL came', async ({ expect }) => {
    const host = new URL(fx.sandbox.url).host;
    const other = 'crk_' + 'PastedNotConfigured0123456789abcdef';
    const { dir } = folderWith({});
    const cases: Array<{ key: string; argv: string[]; env: Record<string, string | undefined> }> = [
      // The configured key, as user:password and as the user alone; another key; a port that makes it no URL at all.
      { key: fx.sandbox.key, argv: ['job', 'demo', '--base-url', `http://user:${fx.sandbox.key}@${host}`], env: { CRAWL_API_KEY: fx.sandbox.key } },
      { key: fx.sandbox.key, argv: ['job', 'demo', '--json', '--base-url', `http://${fx.sandbox.key}@${host}`], env: { CRAWL_API_KEY: fx.sandbox.key } },
      { key: other, argv: ['job', 'demo', '--base-url', `http://user:${other}@${host}`], env: { CRAWL_API_KEY: fx.sandbox.key } },
      { key: other, argv: ['job', 'demo', '--base-url', `http://user:${other}@${host}:99999`], env: { CRAWL_API_KEY: fx.sandbox.key } },
      { key: other, argv: ['job', 'demo'], env: { CRAWL_BASE_URL: `http://user:${other}@${host}`, CRAWL_API_KEY: fx.sandbox.key } },
      { key: other, argv: ['keys', 'list', '--profile', 'p'], env: { CRAWL_BASE_URL: `http://user:${other}@${host}`, CRAWL_API_KEY: fx.sandbox.key } },
    ];
    const results = await Promise.all(cases.map(({ argv, env }) => runCli(argv, { env: envOf({ CRAWL_CONFIG_DIR: dir, ...env }) })));
    for (const [i, r] of results.entries()) {
      expect(r.code, `case ${i}`).toBe(2);
      expect(findKey(r.stdout + r.stderr, cases[i]?.key ?? ''), `case ${i}: ${r.stderr}`).toBeUndefined();
      expect(r.stderr, `case ${i}`).toMatch(/base URL/);
    }
    // The hint still names the service, without the user and password.
    expect(results[0]?.stderr).toContain(`hint: store the key with \`crawl --base-url http://${host}/ auth login\``);
  });

  it.concurrent('normalised where it is used: with or without a trailing slash, and as older versions stored it', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'as-set', status: 'completed', pagesTotal: 1 });
    for (const value of [fx.sandbox.url, fx.sandbox.url + '/']) {
      const { dir } = folderWith({});
      const env = envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_API_KEY: fx.sandbox.key });
      expect((await runCli(['config', 'set', 'base-url', value], { env })).code).toBe(0);
      const status = await runCli(['job', 'status', 'as-set'], { env });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain('id\tas-set\n');
      const auth = await runCli(['auth', 'status', '--json'], { env });
      expect(JSON.parse(auth.stdout).baseUrl).toBe(fx.sandbox.url + '/');
    }
  });
});

describe('XDG_CONFIG_HOME', () => {
  // The working folder is this process's: a relative XDG_CONFIG_HOME would resolve against it.
  it.concurrent.for(['relative', './relative', 'relative/sub', '.'])('relative (%s) is ignored, as the XDG spec says: ~/.config/crawl, nothing in the working folder', async (xdg, { expect }) => {
    const home = join(tmp.dir, `home-${++n}`);
    mkdirSync(home, { mode: 0o700 });
    const cwd = process.cwd();
    const before = readdirSync(cwd).sort();
    const env = envOf({ HOME: home, XDG_CONFIG_HOME: xdg, CRAWL_CONFIG_DIR: undefined });
    const path = await runCli(['config', 'path'], { env });
    expect(path.stdout).toBe(join(home, '.config', 'crawl', 'config.json') + '\n');
    const set = await runCli(['config', 'set', 'base-url', 'https://a.example'], { env });
    expect(set.code, set.stderr).toBe(0);
    expect(existsSync(resolve(cwd, xdg, 'crawl'))).toBe(false);
    expect(readdirSync(cwd).sort()).toEqual(before);
    expect(JSON.parse(readFileSync(join(home, '.config', 'crawl', 'config.json'), 'utf8')).profiles.default['base-url']).toBe('https://a.example');
  });

  it.concurrent('absolute is used; empty falls back to ~/.config', async ({ expect }) => {
    const home = join(tmp.dir, `home-${++n}`);
    const xdg = join(tmp.dir, `xdg-${n}`);
    const [absolute, empty] = await Promise.all([
      runCli(['config', 'path'], { env: envOf({ HOME: home, XDG_CONFIG_HOME: xdg, CRAWL_CONFIG_DIR: undefined }) }),
      runCli(['config', 'path'], { env: envOf({ HOME: home, XDG_CONFIG_HOME: '', CRAWL_CONFIG_DIR: undefined }) }),
    ]);
    expect(absolute.stdout).toBe(join(xdg, 'crawl', 'config.json') + '\n');
    expect(empty.stdout).toBe(join(home, '.config', 'crawl', 'config.json') + '\n');
  });

  it.concurrent('crawl help environment says so', async ({ expect }) => {
    const r = await runCli(['help', 'environment']);
    expect(r.stdout.replace(/\n +/g, ' ')).toMatch(/XDG_CONFIG_HOME\s+base of the default config folder; ignored unless an absolute path/);
    expect(r.stdout.replace(/\n +/g, ' ')).toMatch(/CRAWL_API_KEY\s+.*spaces and line breaks around it are ignored/);
  });
});
