// Tables and field views on terminals of several widths: every line fits, ids and
// prefixes are whole, free text (names, URLs, messages) is cut with … or wrapped; off a terminal,
// full values. In this process, on memory terminals of each width.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/io/string-width.js';
import { crawl } from '../support/harness.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

const NAMES = [
  'deploy to production (eu-west-1 and us-east-2), rotated every quarter',
  '本番環境のデプロイ用キー（ヨーロッパ地域）',
  '🚀 release bot 🔑 for the nightly builds',
  'evil\u001b[31m\u0007 name with escapes',
];
const URL = 'https://docs.example.com/guides/getting-started/installation/linux/debian-and-ubuntu/index.html';
const ERROR = 'Robots.txt disallowed the remaining pages after the crawler reached the rate limit of the origin server';

let fx: SandboxFixture;
const keys: Array<{ id: string; keyPrefix: string }> = [];
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  for (const name of NAMES) keys.push(fx.sandbox.addKey(name));
  fx.sandbox.addJob({ id: 'wide-job', url: URL, status: 'errored', pagesTotal: 80, pagesFinished: 17, errorMessage: ERROR });
});
afterAll(() => fx.close());

const plain = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');
const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

describe.each([50, 60, 80, 120, 200])('a terminal %i columns wide', (columns) => {
  it('keys list: every line fits, ids and prefixes whole, the key in use marked, names cut with …', async () => {
    for (const colour of [{ NO_COLOR: '1' }, { FORCE_COLOR: '1' }]) {
      const r = await crawl(['keys', 'list'], { env: { ...fx.env, ...colour }, tty: true, columns });
      expect(r.code).toBe(0);
      const table = lines(r.stdout);
      expect(table).toHaveLength(NAMES.length + 2);
      for (const line of table) expect(displayWidth(line), plain(line)).toBeLessThanOrEqual(columns);
      const body = table.slice(1).map(plain);
      for (const key of [...keys, { id: '', keyPrefix: fx.sandbox.key.slice(0, 12) }]) {
        expect(body.some((line) => (key.id === '' || line.startsWith(`${key.id}  `)) && line.includes(`  ${key.keyPrefix}`))).toBe(true);
      }
      expect(body.filter((line) => /\b(bootstrap|boot\S*…) \(in use\)/.test(line))).toHaveLength(1);
      expect(r.stdout).not.toMatch(/\u0007|\u001b\[31m/);
      const header = plain(table[0] ?? '').trimEnd();
      if (columns >= 120) expect(header).toMatch(/^ID\s+NAME\s+PREFIX\s+LAST USED\s+CREATED$/);
      if (columns <= 80) expect(body.some((line) => line.includes('…'))).toBe(true);
      if (columns === 50) expect(header).toMatch(/^ID\s+NAME\s+PREFIX$/);
    }
  });

  it('job status: the URL and the error wrap or are cut to the width, the id whole', async () => {
    const r = await crawl(['job', 'wide-job'], { env: { ...fx.env, NO_COLOR: '1' }, tty: true, columns });
    expect(r.code).toBe(0);
    for (const line of lines(r.stdout)) expect(displayWidth(line), line).toBeLessThanOrEqual(Math.max(columns, 30));
    expect(r.stdout).toMatch(/^Job\s+wide-job$/m);
    // The error is all there, over as many lines as it takes.
    const error = r.stdout.slice(r.stdout.indexOf('Error')).split('\n\n')[0] ?? '';
    expect(error.replace(/^Error\s+/, '').split(/\s+/).join(' ')).toBe(ERROR);
  });
});

it('off a terminal: full values, whatever the width', async () => {
  const r = await crawl(['keys', 'list'], { env: fx.env, columns: 50 });
  expect(r.code).toBe(0);
  for (const name of NAMES.slice(0, 3)) expect(r.stdout).toContain(`\t${name}\t`);
  expect(r.stdout).not.toContain('…');
  const job = await crawl(['job', 'wide-job'], { env: fx.env, columns: 50 });
  expect(job.stdout).toContain(`url\t${URL}\n`);
  expect(job.stdout).toContain(`errorMessage\t${ERROR}\n`);
});
