// A proxy (HTTPS_PROXY / HTTP_PROXY) that misbehaves, for every command: it refuses the tunnel
// and asks for credentials (407), refuses it otherwise (502), or accepts it and relays nothing.
// Nothing reaches the service, so nothing may be said to have maybe happened there; the exit code
// is the network's (5; a watch: 7 at --max-wait); the hint says what to set; and the proxy, which
// only ever sees CONNECT, never sees the key.
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { checkOutcome, command, COMMANDS, GET_ATTEMPTS, identity, MAX_BACKOFF_MS, MAX_WAIT_S, runCommand, TIMEOUT_S, type Command } from '../support/battery.js';
import { fakeClock } from '../support/fake-clock.js';
import { startHostile, startHostileProxy } from '../support/hostile-server.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

vi.setConfig({ maxConcurrency: 10 });

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

async function runThroughProxy(cmd: Command, behaviour: { status: number } | 'hang') {
  const id = identity(fx.sandbox);
  // The service, behind a recorder: what reached it, if anything.
  const service = await startHostile({ upstream: fx.sandbox.url });
  // A tunnel that relays nothing holds the request until its --timeout passes on the run's clock.
  const clock = fakeClock();
  const proxy = await startHostileProxy(behaviour, { onHold: () => void clock.untilNextDeadline() });
  try {
    const env = { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url };
    const r = await runCommand(cmd, id, service.url, { env, clock });
    return { r, id, proxySeen: [...proxy.seen], tunnelled: proxy.tunnelled(), serviceSeen: [...service.seen] };
  } finally {
    await proxy.close();
    await service.close();
    id.cleanup();
  }
}

describe.concurrent('a proxy that asks for credentials (407), every command', () => {
  it.for(COMMANDS.map((c) => [c.name, c] as const))('%s', async ([, cmd], { expect }) => {
    const { r, id, proxySeen, serviceSeen } = await runThroughProxy(cmd, { status: 407 });
    checkOutcome(
      expect,
      r,
      {
        code: 5,
        message: cmd.polls ? /gave up waiting: the job could not be read yet \(the last attempt: the proxy refused/ : /the proxy refused to connect to the service \(HTTP 407: proxy authentication required\)/,
        // A watch sits the refusals out to --max-wait; a retried GET waits out its backoff (a revoke's
        // or a rotate's list is that GET); a POST or DELETE fails at once, waiting for nothing.
        ...(cmd.polls
          ? { withinMs: MAX_WAIT_S * 1000, gaveUpAtMs: MAX_WAIT_S * 1000 }
          : { withinMs: MAX_BACKOFF_MS, retries: { count: cmd.method === 'GET' || cmd.listsFirst ? GET_ATTEMPTS - 1 : 0 } }),
      },
      [id.key],
    );
    if (!cmd.polls) expect(r.stderr).toMatch(/^hint: .*HTTPS_PROXY=http:\/\/user:password@proxy:port/m);
    // Never "a key may have been created" or "may have been revoked": the tunnel was never open.
    expect(r.stderr).not.toMatch(/may have been/);
    expect(serviceSeen).toEqual([]);
    expect(proxySeen.length).toBeGreaterThan(0);
    for (const seen of proxySeen) expect(seen.headers.authorization).toBeUndefined();
    // GETs are retried (a proxy may recover); a POST or DELETE never reaches its first attempt twice.
    if (!cmd.polls) expect(proxySeen.length).toBe(cmd.method === 'GET' || cmd.listsFirst ? GET_ATTEMPTS : 1);
  });
});

describe.concurrent('other proxy failures', () => {
  it('a tunnel refused with 502: exit 5, pointing at the proxy settings', async ({ expect }) => {
    const { r, id, proxySeen, serviceSeen } = await runThroughProxy(command('job status'), { status: 502 });
    checkOutcome(
      expect,
      r,
      { code: 5, message: /the proxy refused to connect to the service \(HTTP 502\)/, withinMs: MAX_BACKOFF_MS, retries: { count: GET_ATTEMPTS - 1 } },
      [id.key],
    );
    expect(proxySeen.length).toBe(GET_ATTEMPTS);
    expect(r.stderr).toMatch(/^hint: check HTTPS_PROXY \/ HTTP_PROXY, or bypass the proxy for this host with NO_PROXY$/m);
    expect(serviceSeen).toEqual([]);
  });

  it.for(['job status', 'keys create'])('%s: a tunnel that relays nothing times out (exit 5)', async (name, { expect }) => {
    const cmd = command(name);
    const { r, id, tunnelled } = await runThroughProxy(cmd, 'hang');
    const attempts = cmd.method === 'GET' ? GET_ATTEMPTS : 1;
    // Each attempt lasts its --timeout; between them, only the backoff.
    const hungMs = attempts * TIMEOUT_S * 1000;
    checkOutcome(
      expect,
      r,
      { code: 5, message: new RegExp(`timed out after ${TIMEOUT_S} s`), withinMs: (attempts > 1 ? MAX_BACKOFF_MS : 0) + hungMs, retries: { count: attempts - 1 }, hungMs },
      [id.key],
    );
    expect(tunnelled).toBe(attempts);
  });
});
