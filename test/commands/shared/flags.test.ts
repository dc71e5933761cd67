// The flags several commands take (src/commands/shared/flags.ts): a value out of range, or not a
// number, is a usage error (exit 2) naming the range in words, before anything is sent. In this
// process, against the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../support/harness.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture();
});
afterAll(() => fx.close());

describe('a number out of range, or no number: a usage error naming the range in words', () => {
  it.each([
    [['job', 'watch', 'demo-small', '--interval', '0.1'], 'invalid --interval "0.1": give a number of seconds, from 0.5 to 86400 (a day); polling more often only loads the service'],
    [['job', 'cancel', 'demo-pending', '--wait', '--interval', '0.49'], 'invalid --interval "0.49": give a number of seconds, from 0.5 to 86400 (a day); polling more often only loads the service'],
    [['job', 'pages', 'demo-small', '--limit', '0'], 'invalid --limit "0": give a whole number, 1 or more'],
    [['job', 'pages', 'demo-small', '--limit', '-5'], 'invalid --limit "-5": give a whole number, 1 or more'],
    [['job', 'demo-small', '--timeout', '0'], 'invalid --timeout "0": give a number of seconds, more than 0 and at most 86400 (a day)'],
    [['job', 'demo-small', '--timeout', '90000'], 'invalid --timeout "90000": give a number of seconds, more than 0 and at most 86400 (a day)'],
    [['sandbox', '--port', '70000'], 'invalid --port "70000": give a whole number, from 0 to 65535'],
    [['--timeout', 'soon', 'job', 'demo-small'], 'invalid --timeout "soon": give a number of seconds, more than 0 and at most 86400 (a day)'],
    [['job', 'watch', 'demo-small', '--interval', '0'], 'invalid --interval "0": give a number of seconds, from 0.5 to 86400 (a day); polling more often only loads the service'],
  ])('crawl %j', async (argv, message) => {
    const r = await crawl(argv, { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`crawl: ${message}\n`);
    expect(r.stderr).not.toContain('9007199254740991');
    expect(fx.sandbox.requests.some((q) => q.url.includes('demo-pending') && q.method === 'DELETE')).toBe(false);
  });

  // Other tools take durations (`10s`, `1h`); these flags take seconds, and say so rather than
  // blame a number that was never read ("polling more often only loads the service").
  it.each([
    [['job', 'watch', 'demo-small', '--interval', '10s'], 'invalid --interval "10s": give a number of seconds without a unit, from 0.5 to 86400 (a day)', 'write --interval 10'],
    [['job', 'watch', 'demo-small', '--max-wait', '1h'], 'invalid --max-wait "1h": give a number of seconds without a unit, more than 0 and at most 86400 (a day)', 'write --max-wait 3600'],
    [['job', 'demo-small', '--timeout', '5s'], 'invalid --timeout "5s": give a number of seconds without a unit, more than 0 and at most 86400 (a day)', 'write --timeout 5'],
    [['job', 'pages', 'demo-small', '--wait', '--max-wait', '1.5 min'], 'invalid --max-wait "1.5 min": give a number of seconds without a unit, more than 0 and at most 86400 (a day)', 'write --max-wait 90'],
    [['job', 'watch', 'demo-small', '--interval', '100ms'], 'invalid --interval "100ms": give a number of seconds without a unit, from 0.5 to 86400 (a day)', undefined],
    [['job', 'watch', 'demo-small', '--max-wait', '2d'], 'invalid --max-wait "2d": give a number of seconds without a unit, more than 0 and at most 86400 (a day)', undefined],
    [['job', 'watch', 'demo-small', '--interval', '10fortnights'], 'invalid --interval "10fortnights": give a number of seconds without a unit, from 0.5 to 86400 (a day)', undefined],
  ])('crawl %j: a unit is named as the problem, with the value in seconds when it is in range', async (argv, message, hint) => {
    const r = await crawl(argv, { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`crawl: ${message}\n${hint === undefined ? '' : `hint: ${hint}\n`}`);
  });

  it('0.5 s is allowed, and a --limit past what a number holds means all of them', async () => {
    const [watch, pages] = await Promise.all([
      crawl(['job', 'watch', 'demo-small', '--interval', '0.5'], { env: fx.env }),
      crawl(['job', 'pages', 'demo-small', '--limit', '99999999999999999999999'], { env: fx.env }),
    ]);
    expect(watch.code).toBe(0);
    expect(pages.code).toBe(0);
    expect(pages.stdout.trim().split('\n')).toHaveLength(42);
  });
});
