// A created key that no Authorization header can carry (control characters, white space, anything
// outside visible ASCII) is never printed: not on a terminal, not in a pipe, not in --json. The
// command names the key and how to find and revoke it (exit 1); `keys rotate` stops at step 2 with
// nothing stored and the old key untouched.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/harness.js';
import { calls, configProfile, keyStatus, storedKey } from '../../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

let fx: SandboxFixture;
beforeEach(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterEach(() => fx.close());

/** Each key holds the marker, so any trace of it in an output shows. */
const MARK = 'SECRETPART';
const KEYS: Array<[string, string]> = [
  ['an ESC sequence', `crk_${MARK}\u001b[2J\u001b]0;pwned\u0007tail`],
  ['a newline', `crk_${MARK}\nX-Injected: 1`],
  ['a carriage return', `crk_${MARK}\rtail`],
  ['a zero-width space', `crk_${MARK}\u200btail`],
  ['a bidi override', `crk_${MARK}\u202etail`],
  ['a space', `crk_${MARK} tail`],
  ['a tab', `crk_${MARK}\ttail`],
  ['a non-ASCII letter', `crk_${MARK}étail`],
  ['a tag character', `crk_${MARK}\u{e0041}tail`],
];

function postAnswers(key: string, name: string): void {
  fx.sandbox.inject({
    method: 'POST',
    path: '/api/keys',
    kind: 'status',
    status: 201,
    times: 1,
    body: JSON.stringify({ success: true, key, prefix: key.slice(0, 12), name, warning: 'This key will not be shown again.' }),
  });
}

describe.each(KEYS.map(([form, key]) => ({ form, key })))('the service creates a key with $form', ({ key }) => {
  it('keys create: never printed, in a pipe, with --json or on a terminal; exit 1 naming the key and what to do', async () => {
    const outFile = join(fx.configDir, 'never.key');
    const runs: Array<[string[], boolean]> = [
      [['keys', 'create', 'ci'], false],
      [['keys', 'create', 'ci', '--json'], false],
      [['keys', 'create', 'ci', '--save', '--output-file', outFile], false],
      [['keys', 'create', 'ci'], true],
    ];
    for (const [args, tty] of runs) {
      postAnswers(key, 'ci');
      const r = await runCli(args, { env: fx.env, tty });
      expect(r.code, args.join(' ')).toBe(1);
      const all = r.stdout + r.stderr;
      expect(all).not.toContain(MARK);
      if (!tty) expect(r.stdout).toBe('');
      const said = args.includes('--json') ? (JSON.parse(r.stderr) as { error: { message: string } }).error.message : all;
      expect(said).toMatch(/the service returned an unusable key named "ci": it holds characters that no Authorization header can carry/);
      if (!args.includes('--json')) {
        expect(all).toMatch(/hint: the key exists at the service: find it by its name with `crawl keys list` and revoke it with `crawl keys revoke <id> --yes`/);
      }
      expect(existsSync(outFile)).toBe(false);
    }
  });

  it('keys rotate: stops at step 2, nothing stored or printed, the old key untouched (exit 1)', async () => {
    const ci = fx.sandbox.addKey('ci');
    const profile = configProfile(fx.sandbox, ci.key);
    postAnswers(key, 'ci (rotated)');
    try {
      const before = fx.sandbox.requests.length;
      const r = await runCli(['keys', 'rotate', '--yes', '--name', 'ci (rotated)'], { env: { ...fx.env, ...profile.env } });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toContain(MARK);
      expect(r.stderr).toMatch(/step 2 of 5 \(create the new key\): the service returned an unusable key named "ci \(rotated\)"/);
      expect(r.stderr).toMatch(/A key "ci \(rotated\)" was created at the service, unusable: it was not kept\./);
      expect(r.stderr).toMatch(/The old key "ci" \(key_\w+\) is still active and still stored\./);
      expect(r.stderr).toMatch(/hint: find the key named "ci \(rotated\)" with `crawl keys list` and revoke it with `crawl keys revoke <id> --yes`; the old key still works/);
      expect(calls(fx.sandbox, before)).toEqual(['GET /api/keys', 'POST /api/keys']);
      expect(storedKey(profile.file)).toBe(ci.key);
      expect(await keyStatus(fx.sandbox, ci.key)).toBe(200);
    } finally {
      profile.cleanup();
    }
  });
});

describe('the service answers with the caller\'s own key where the new key should be', () => {
  // The HTTP layer redacts a key of the run from every body, in any encoding: what is left must not
  // pass for a new key (printed, saved over the working key, or written to a file).
  const forms: Array<[string, (key: string) => string]> = [
    ['as it is', (key) => key],
    ['with JSON escapes', (key) => key.split('').map((c, i) => (i % 2 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c)).join('')],
  ];
  it.each(forms)('%s: keys create --save is refused, exit 1, config and output untouched', async (_form, encode) => {
    const profile = configProfile(fx.sandbox, fx.sandbox.key);
    try {
      const body = `{"success":true,"key":"${encode(fx.sandbox.key)}","prefix":"crk_x","name":"ci","warning":"w"}`;
      fx.sandbox.inject({ method: 'POST', path: '/api/keys', kind: 'status', status: 201, times: 1, body });
      const r = await runCli(['keys', 'create', 'ci', '--save'], { env: { ...fx.env, ...profile.env } });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/the service returned an unusable key named "ci": in place of a new key it holds a key this run already uses/);
      expect(r.stderr).not.toContain(fx.sandbox.key);
      expect(storedKey(profile.file)).toBe(fx.sandbox.key);
    } finally {
      profile.cleanup();
    }
  });
});
