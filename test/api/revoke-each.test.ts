// The revoke loop (src/api/revoke-each.ts) below `keys revoke` and `keys prune`: one DELETE a key,
// a failure that names the key and keeps the service error's code, status and hint, the others
// still revoked. Both commands, given the same fault, report it with the same lines.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { revokeEach, type RevokeOutcome } from '../../src/api/revoke-each.js';
import type { ApiKey } from '../../src/api/keys.js';
import { InterruptedError } from '../../src/errors.js';
import { HttpClient } from '../../src/http/client.js';
import { runCli } from '../support/harness.js';
import { calls, keyStatus } from '../support/keys.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { fakeClock } from '../support/fake-clock.js';

let fx: SandboxFixture;
beforeEach(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterEach(() => fx.close());

function http(interrupt?: AbortSignal): HttpClient {
  return new HttpClient({ baseUrl: new URL(fx.sandbox.url), apiKey: fx.sandbox.key, timeoutMs: 10_000, allowHttp: true, userAgent: 'revoke-each-test', clock: fakeClock(), interrupt });
}

const listed = (k: { id: string; name: string; keyPrefix: string }): ApiKey => ({ id: k.id, name: k.name, keyPrefix: k.keyPrefix });

describe('revokeEach', () => {
  it('one DELETE a key, in order; a failure is named, keeps its exit code, status and hint, and does not stop the others', async () => {
    const [a, b, c] = ['p-a', 'p-b', 'p-c'].map((name) => fx.sandbox.addKey(name));
    if (!a || !b || !c) throw new Error('keys not made');
    fx.sandbox.inject({ method: 'DELETE', path: `/api/keys/${b.id}`, kind: 'status', status: 401 });
    const heard: RevokeOutcome[] = [];
    const before = fx.sandbox.requests.length;
    const outcomes = await revokeEach(http(), [a, b, c].map(listed), (o) => heard.push(o));
    expect(heard).toEqual(outcomes);
    expect(calls(fx.sandbox, before)).toEqual([`DELETE /api/keys/${a.id}`, `DELETE /api/keys/${b.id}`, `DELETE /api/keys/${c.id}`]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
    const failed = outcomes[1];
    if (!failed || failed.ok) throw new Error('expected a failure');
    expect(failed.error.message).toMatch(new RegExp(`^cannot revoke key "p-b" \\(${b.id}, ${b.keyPrefix}\\): .*HTTP 401`));
    expect(failed.error).toMatchObject({ exitCode: 4, httpStatus: 401, hint: expect.stringContaining('crawl auth status') });
    expect(await keyStatus(fx.sandbox, a.key)).toBe(401);
    expect(await keyStatus(fx.sandbox, b.key)).toBe(200);
    expect(await keyStatus(fx.sandbox, c.key)).toBe(401);
  });

  it('an interrupt stops the loop and is thrown, not reported as a key that failed', async () => {
    const keys = ['p-a', 'p-b'].map((name) => listed(fx.sandbox.addKey(name)));
    const controller = new AbortController();
    const heard: RevokeOutcome[] = [];
    const error = await revokeEach(http(controller.signal), keys, (o) => {
      heard.push(o);
      controller.abort(new InterruptedError());
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect(heard.map((o) => o.ok)).toEqual([true]);
  });
});

describe('keys revoke and keys prune report a failed key alike', () => {
  it('the same fault gives the same `crawl: cannot revoke key ...` line and the same hint', async () => {
    const lines = async (args: string[]): Promise<string[]> => {
      fx.sandbox.reset();
      const bad = fx.sandbox.addKey('p-bad');
      const good = fx.sandbox.addKey('p-good');
      fx.sandbox.inject({ method: 'DELETE', path: `/api/keys/${bad.id}`, kind: 'status', status: 401 });
      const r = await runCli([...args.map((a) => a.replace('BAD', bad.id).replace('GOOD', good.id)), '--yes'], { env: fx.env });
      expect(r.code).toBe(4);
      expect(await keyStatus(fx.sandbox, good.key)).toBe(401);
      // The ids differ between the two runs: compare the words around them.
      return r.stderr
        .split('\n')
        .filter((l) => l.startsWith('crawl: ') || l.startsWith('hint: '))
        .map((l) => l.replaceAll(bad.id, '<id>').replaceAll(bad.keyPrefix, '<prefix>'));
    };
    const revoke = await lines(['keys', 'revoke', 'BAD', 'GOOD']);
    const prune = await lines(['keys', 'prune', '--never-used', '--name-glob', 'p-*']);
    expect(revoke).toEqual(prune);
    expect(prune).toEqual([expect.stringMatching(/^crawl: cannot revoke key "p-bad" \(<id>, <prefix>\): /), expect.stringContaining('crawl auth status')]);
  });
});
