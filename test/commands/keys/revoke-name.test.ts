// `keys revoke` by a key's exact name (issue 16): when exactly one key answers to it; several keys
// of that name, or a name that is also another key's prefix, are refused naming them, and nothing
// is revoked. In this process, against the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calls, keyStatus } from '../../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { crawl } from '../../support/harness.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterAll(() => fx.close());

const deletes = (from: number): string[] => calls(fx.sandbox, from).filter((c) => c.startsWith('DELETE'));

describe('crawl keys revoke <name>', () => {
  it('a unique name revokes that key', async () => {
    const deploy = fx.sandbox.addKey('deploy nightly');
    const r = await crawl(['keys', 'revoke', 'deploy nightly', '--yes'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Revoked key "deploy nightly" (${deploy.id}, ${deploy.keyPrefix})`);
    expect(await keyStatus(fx.sandbox, deploy.key)).toBe(401);
  });

  it('a name two keys share: exit 2, both named, nothing revoked', async () => {
    const one = fx.sandbox.addKey('ci');
    const two = fx.sandbox.addKey('ci');
    const mark = fx.sandbox.requests.length;
    const r = await crawl(['keys', 'revoke', 'ci', '--yes'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `crawl: "ci" is the name of 2 keys: "ci" (${one.id}, ${one.keyPrefix}), "ci" (${two.id}, ${two.keyPrefix}): nothing was revoked\n` +
        'hint: give the id, or more of the prefix\n',
    );
    expect(deletes(mark)).toEqual([]);
    expect(await keyStatus(fx.sandbox, one.key)).toBe(200);
  });

  it("a name that is also another key's prefix is ambiguous, not a guess; an id wins over a name", async () => {
    const target = fx.sandbox.addKey('temp');
    const named = fx.sandbox.addKey(target.keyPrefix.slice(0, 8));
    const byId = fx.sandbox.addKey('x');
    const decoy = fx.sandbox.addKey(byId.id);
    const mark = fx.sandbox.requests.length;
    const ambiguous = await crawl(['keys', 'revoke', named.name, '--yes'], { env: fx.env });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(new RegExp(`^crawl: "${named.name}" matches 2 keys: .*${target.id}.*${named.id}|^crawl: "${named.name}" matches 2 keys: .*${named.id}.*${target.id}`));
    expect(deletes(mark)).toEqual([]);
    const exact = await crawl(['keys', 'revoke', byId.id, '--yes'], { env: fx.env });
    expect(exact.code).toBe(0);
    expect(await keyStatus(fx.sandbox, byId.key)).toBe(401);
    expect(await keyStatus(fx.sandbox, decoy.key)).toBe(200);
  });

  it('a name no key has: exit 3', async () => {
    const r = await crawl(['keys', 'revoke', 'nobody has this name', '--yes'], { env: fx.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^crawl: no active key has the id, prefix or name "nobody has this name": nothing was revoked\n/);
  });
});
