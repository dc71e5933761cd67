// `crawl keys rotate` interrupted (Ctrl-C or SIGTERM) midway goes through the same "nothing lost"
// path as a failure. In this process: the interrupt is what src/main.ts makes of the signal.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, waitFor } from '../../support/cli.js';
import { calls, configKeySetup, fullKeysIn, keyStatus, storedKey, type ConfigKeySetup } from '../../support/keys.js';
import type { SandboxFixture } from '../../support/sandbox.js';

let setup: ConfigKeySetup;
let fx: SandboxFixture;
let old: ConfigKeySetup['old'];
let profile: ConfigKeySetup['profile'];
let env: ConfigKeySetup['env'];
beforeEach(async () => {
  setup = await configKeySetup();
  ({ fx, old, profile, env } = setup);
  // The check of the new key (the second GET /api/keys) is held until the test interrupts it.
  fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'latency', ms: 5_000, skip: 1, times: 1 });
});
afterEach(() => setup.close());

const KEY_LINE = /^crk_[A-Za-z0-9]{20,}\n$/;
/** Interrupts (Ctrl-C, or `signal`) once the check of the new key has reached the sandbox. */
const interruptAtCheck = (from: number, signal: NodeJS.Signals = 'SIGINT') => (child: ChildProcess): void => {
  const checking = (): boolean => calls(fx.sandbox, from).filter((c) => c === 'GET /api/keys').length >= 2;
  void waitFor(checking, 10_000, 'the check').then(() => child.kill(signal));
};

describe('crawl keys rotate, interrupted', () => {
  it.for([
    ['Ctrl-C', 'SIGINT', 130],
    ['SIGTERM', 'SIGTERM', 143],
  ] as const)('%s while the new key is being checked: it is printed once, the old key stays (exit as documented)', async ([, signal, code]) => {
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes'], {
      env,
      onSpawn: interruptAtCheck(before, signal),
    });
    expect(r.code).toBe(code);
    expect(r.stdout).toMatch(KEY_LINE);
    expect(r.stderr).toMatch(/step 3 of 5 .*: interrupted\./);
    expect(r.stderr).toMatch(/only copy/);
    expect(fullKeysIn(r.stderr)).toEqual([]);
    expect(storedKey(profile.file)).toBe(old.key);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
    expect(await keyStatus(fx.sandbox, r.stdout.trim())).toBe(200);
  });

  it('Ctrl-C with an output file: the key is written there', async () => {
    const out = join(profile.dir, 'int.key');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['keys', 'rotate', '--yes', '--output-file', out], {
      env: { ...env, CRAWL_API_KEY: old.key },
      onSpawn: interruptAtCheck(before),
    });
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`Stored the new key in ${out}`);
    expect(await keyStatus(fx.sandbox, readFileSync(out, 'utf8').trim())).toBe(200);
    expect(await keyStatus(fx.sandbox, old.key)).toBe(200);
  });
});
