// Local faults of the output: files and stdout that cannot take what crawl writes (a full disk,
// a closed pipe, a folder that refuses files). Whatever happens: exit with one line, and nothing of
// the user's lost: the records already written stay whole, and a new key reaches the user (stdout
// or a file), or the message says nobody has it and what to do.
// In this process, stdout and stderr fail as a full disk (ENOSPC) or a reader gone (EPIPE) make
// them fail. What only a process shows (a real pipe, /dev/full, a file size limit, help written
// straight to the descriptor, files another user may not write) is in test/process/.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { activeKeys, fullKeysIn, keyStatus } from '../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { crawl, type CrawlOptions, runCli, tempDir } from '../support/harness.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
let n = 0;
beforeAll(async () => {
  fx = await sandboxFixture();
  tmp = tempDir('crawl-local-output-');
  // Enough keys that `keys list` is longer than what a reader takes before it leaves.
  for (let i = 0; i < 1500; i++) fx.sandbox.addKey(`bulk-${i}`);
  // Not demo-running: that one finishes on its own after some seconds, and a slow run then cancels a finished job.
  fx.sandbox.addJob({ id: 'still-running', status: 'running', pagesTotal: 100 });
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

/** stdout on a full disk (`> /dev/full`): the first write fails. */
const FULL: CrawlOptions['stdoutFails'] = { code: 'ENOSPC' };
/** stdout to a reader gone before anything is written (`| true`). */
const GONE: CrawlOptions['stdoutFails'] = { code: 'EPIPE' };
/** stdout to a reader that takes a little and leaves (`| head -1`). */
const HEAD: CrawlOptions['stdoutFails'] = { code: 'EPIPE', afterBytes: 100 };
/** `line` as arguments (no quoting in these lines). */
const argv = (line: string): string[] => line.split(' ');

const KEY_LINE = /^crk_[A-Za-z0-9]{20,}\n$/;
const ENOSPC = 'crawl: cannot write to standard output: no space left on device (ENOSPC)\n';

describe('job pages --output to a file that cannot take it all', () => {
  it.concurrent('a path below a regular file (ENOTDIR): one line, exit 1, before any request', async ({ expect }) => {
    const blocker = join(tmp.dir, `blocker-${++n}`);
    writeFileSync(blocker, 'keep\n');
    fx.sandbox.addJob({ id: 'below-file', status: 'completed', pagesTotal: 10 });
    const r = await runCli(['job', 'pages', 'below-file', '--output', join(blocker, 'out.ndjson')], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`crawl: cannot write to ${join(blocker, 'out.ndjson')}: a part of the path is not a folder (ENOTDIR)\n`);
    expect(readFileSync(blocker, 'utf8')).toBe('keep\n');
    expect(fx.sandbox.requests.some((q) => q.url.startsWith('/api/crawl/below-file'))).toBe(false);
  });

});

describe('keys create --output-file / keys rotate --output-file to places known bad beforehand', () => {
  // Refused before the key exists: nothing to lose, nothing created at the service.
  const places = (): Array<[string, string, RegExp]> => {
    const blocker = join(tmp.dir, `key-blocker-${++n}`);
    writeFileSync(blocker, 'keep\n');
    return [
      ['a missing folder', join(tmp.dir, 'no-such-folder', 'ci.key'), /^crawl: cannot create .*ci\.key: the folder .*no-such-folder does not exist\n$/],
      ['a path below a regular file', join(blocker, 'ci.key'), /^crawl: cannot use .*ci\.key for --output-file: a part of the path is not a folder \(ENOTDIR\)\n$/],
      ['a folder', tmp.dir, /^crawl: .* already exists; --output-file only creates a new file\n/],
      ['/dev/full', '/dev/full', /^crawl: \/dev\/full already exists; --output-file only creates a new file\n/],
    ];
  };
  it.concurrent('keys create and keys rotate: exit 2, no request that makes or revokes a key, the old key kept', async ({ expect }) => {
    const old = fx.sandbox.addKey('kept-by-refusal');
    for (const [, path, message] of places()) {
      const [create, rotate] = await Promise.all([
        runCli(['keys', 'create', 'refused', '--output-file', path], { env: fx.env }),
        runCli(['keys', 'rotate', '--yes', '--output-file', path], { env: { ...fx.env, CRAWL_API_KEY: old.key } }),
      ]);
      for (const r of [create, rotate]) {
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(message);
      }
    }
    // (Other tests here make keys at the same time: these are told apart by their names.)
    const made = (await activeKeys(fx.sandbox, fx.sandbox.key)).filter((k) => k.name === 'refused' || k.name.startsWith('kept-by-refusal ('));
    expect(made).toEqual([]);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });
});

describe('keys create --output-file / keys rotate --output-file where no file can be made', () => {
  // /proc/self is a folder that refuses new files, even to root: the check before the POST passes,
  // the write after it fails. The key must still be handed over on stdout.
  it.concurrent('keys create: the key is printed (its only copy), exit 1 naming the file', async ({ expect }) => {
    const r = await runCli(['keys', 'create', 'proc-file', '--output-file', '/proc/self/crawl.key'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(KEY_LINE);
    expect(r.stderr).toContain('crawl: the key was created, but cannot write the key to /proc/self/crawl.key: no such file or folder (ENOENT); the key on stdout is its only copy\n');
    // Printed after all: the service's word about keeping it is said then.
    expect(r.stderr).toMatch(/not be shown again/);
    expect(fullKeysIn(r.stderr)).toEqual([]);
    expect(await keyStatus(fx.sandbox, r.stdout.trim())).toBe(200);
  });

  it.concurrent('keys rotate: the new key is printed, the old one stays active, exit 1', async ({ expect }) => {
    const old = fx.sandbox.addKey('env-key');
    const r = await runCli(['keys', 'rotate', '--yes', '--output-file', '/proc/self/rotated.key'], { env: { ...fx.env, CRAWL_API_KEY: old.key } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(KEY_LINE);
    expect(r.stderr).toMatch(/step 4 of 5 \(store the new key in \/proc\/self\/rotated\.key\): cannot write the key to \/proc\/self\/rotated\.key/);
    expect(r.stderr).toMatch(/printed on stdout: it is its only copy/);
    expect(fullKeysIn(r.stderr)).toEqual([]);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    expect(await keyStatus(fx.sandbox, r.stdout.trim())).toBe(200);
  });
});

describe('a key that stdout cannot take', () => {
  it.concurrent('keys create > /dev/full: exit 1; nobody has the key, and the message says how to revoke it', async ({ expect }) => {
    const r = await crawl(['keys', 'create', 'to-full'], { env: fx.env, stdoutFails: FULL });
    expect(r.code).toBe(1);
    const prefix = /prefix (crk_\w+)\)/.exec(r.stderr)?.[1] ?? '';
    expect(r.stderr.split('\n').slice(-3)).toEqual([
      `crawl: the key "to-full" (prefix ${prefix}) was created, but nobody has a copy of it: cannot write to standard output: no space left on device (ENOSPC)`,
      `hint: revoke it with \`crawl keys revoke ${prefix} --yes\`, then create another`,
      '',
    ]);
    expect(fullKeysIn(r.stderr)).toEqual([]);
    // Doing what the hint says.
    const revoke = await runCli(['keys', 'revoke', prefix, '--yes'], { env: fx.env });
    expect(revoke.code, revoke.stderr).toBe(0);
  });

  it.concurrent('keys create | a reader already gone (EPIPE): exit 1, not a silent 0', async ({ expect }) => {
    const r = await crawl(['keys', 'create', 'to-closed-pipe'], { env: fx.env, stdoutFails: GONE });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/was created, but nobody has a copy of it: cannot write to standard output: the reader closed it \(EPIPE\)\nhint: revoke it/);
  });

  it.concurrent('keys create --save > /dev/full: the key goes to the profile alone, so a stdout that cannot take it does not matter (exit 0)', async ({ expect }) => {
    const dir = join(tmp.dir, `saved-${++n}`);
    const r = await crawl(['keys', 'create', 'saved-anyway', '--save'], { env: { ...fx.env, CRAWL_CONFIG_DIR: dir }, stdoutFails: FULL });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Saved as the key of profile "default" in the config file, plaintext: ${join(dir, 'config.json')}\n`);
    const stored = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default['api-key'];
    expect(await keyStatus(fx.sandbox, stored)).toBe(200);
  });

  it.concurrent('keys rotate that can neither store nor print its key: says nobody has it and how to revoke it', async ({ expect }) => {
    const old = fx.sandbox.addKey('double-fault');
    const r = await crawl(['keys', 'rotate', '--yes', '--output-file', '/proc/self/k'], { env: { ...fx.env, CRAWL_API_KEY: old.key }, stdoutFails: FULL });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/The new key could not be printed either \(cannot write to standard output: no space left on device \(ENOSPC\)\): nobody has a copy of it\./);
    expect(r.stderr).toMatch(/hint: revoke the new key with `crawl keys revoke key_\w+ --yes`, then run `crawl keys rotate` again/);
    expect(r.stderr).not.toMatch(/printed on stdout/);
    expect(fullKeysIn(r.stderr)).toEqual([]);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });
});

describe('stdout on a full disk', () => {
  const commands: Array<[string, string]> = [
    ['help', 'help'],
    ['help exit-codes', 'help exit-codes'],
    // commander's help, written straight to the descriptor when it is not a terminal.
    ['--help', '--help'],
    ['job --help', 'job --help'],
    ['job status', 'job status demo-large'],
    ['job pages', 'job pages demo-large'],
    ['job watch', 'job watch demo-small'],
    ['keys list', 'keys list'],
    ['config path', 'config path'],
  ];
  it.concurrent.for(commands)('%s > /dev/full: one line, exit 1, no stack trace', async ([, line], { expect }) => {
    const r = await crawl(argv(line), { env: fx.env, stdoutFails: FULL });
    expect(r.code).toBe(1);
    // job watch also prints its progress line on stderr first.
    expect(r.stderr.endsWith(ENOSPC)).toBe(true);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it.concurrent('--json: the error is the one JSON line on stderr', async ({ expect }) => {
    const r = await crawl(['job', 'status', 'demo-large', '--json'], { env: fx.env, stdoutFails: FULL });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { message: 'cannot write to standard output: no space left on device (ENOSPC)', httpStatus: null, exitCode: 1 },
    });
  });
});

describe('stderr that cannot take the messages', () => {
  // Nothing can be said any more, but the outcome and its exit code stand (not a crash with exit 1).
  const cases: Array<[string, string, CrawlOptions['stderrFails'], number]> = [
    ['job status of a missing job 2> /dev/full: exit 3', 'job status no-such-job', { code: 'ENOSPC' }, 3],
    ['job watch of an errored job 2> /dev/full: exit 10', 'job watch demo-errored', { code: 'ENOSPC' }, 10],
    ['job watch of an errored job 2>&1 | true: exit 10', 'job watch demo-errored', { code: 'EPIPE' }, 10],
  ];
  it.concurrent.for(cases)('%s', async ([, line, stderrFails, code], { expect }) => {
    const r = await crawl(argv(line), { env: fx.env, stderrFails });
    expect(r.code).toBe(code);
  });

  it.concurrent('keys create 2> /dev/full: the key still comes out on stdout (exit 0)', async ({ expect }) => {
    const r = await crawl(['keys', 'create', 'no-stderr'], { env: fx.env, stderrFails: { code: 'ENOSPC' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(KEY_LINE);
  });
});

describe('stdout closed early (`| head -1`, `| true`)', () => {
  // A reader gone before anything is written (`| true`), or after a little (`| head -1`). The
  // process with a real pipe, `keys list | head -1` among them, is in test/process/pipes.test.ts.
  const commands: Array<[string, string, CrawlOptions['stdoutFails']]> = [
    ['keys list (1500 keys)', 'keys list', HEAD],
    ['keys list --json', 'keys list --json', HEAD],
    ['job pages (plain)', 'job pages demo-large', HEAD],
    ['job watch --json', 'job watch demo-small --json', GONE],
    ['job status', 'job status demo-large', GONE],
    ['job status --json', 'job status demo-large --json', GONE],
    ['job cancel --wait --json', 'job cancel still-running --wait --interval 0.5 --json', GONE],
    ['help', 'help', GONE],
    ['help environment', 'help environment', HEAD],
    ['--help', '--help', GONE],
    ['job pages --help', 'job pages --help', HEAD],
  ];
  it.concurrent.for(commands)('%s: exit 0, nothing on stderr', async ([, line, stdoutFails], { expect }) => {
    const r = await crawl(argv(line), { env: fx.env, stdoutFails });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  // Where the exit code is the job's outcome, a reader that leaves does not make it 0: the job's code
  // once known (demo-errored: 10), 1 while it still runs (test/commands/job/watch.test.ts, status.test.ts).
  it.concurrent.for([
    ['job watch', 'job watch demo-errored', 10],
    ['job watch --json', 'job watch demo-errored --json', 10],
    ['job status --exit-status', 'job status demo-errored --exit-status', 10],
    ['job status without --exit-status', 'job status demo-errored', 0],
  ] as const)('%s of an errored job, the reader gone: the job\'s code (`crawl %s`), no error said', async ([, line, code], { expect }) => {
    const r = await crawl(argv(line), { env: fx.env, stdoutFails: GONE });
    // (The watch's progress line is stderr's, as ever.)
    expect(r.stderr).not.toContain('crawl:');
    expect(r.code).toBe(code);
  });

  it.concurrent.for([
    ['job status', 'job status demo-errored nosuch'],
    ['job status --json', 'job status demo-errored nosuch --json'],
    ['job status --exit-status', 'job status demo-errored nosuch --exit-status'],
  ] as const)('%s with an id that cannot be read, the reader gone: that id\'s code, as when the reader stays', async ([, line], { expect }) => {
    const stays = await crawl(argv(line), { env: fx.env });
    const gone = await crawl(argv(line), { env: fx.env, stdoutFails: GONE });
    expect(stays.code).toBe(3);
    expect(gone.stderr).toContain('job nosuch: GET /api/crawl/nosuch failed: HTTP 404');
    expect(gone.code).toBe(3);
  });
});
