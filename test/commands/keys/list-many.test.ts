// `keys list` with 20,000 keys on a terminal: the table used to be laid out in time quadratic in
// the rows (about 29 s here). It must finish, whole and aligned; test/unit-table.test.ts shows
// that the work grows linearly with the rows.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { displayWidth } from '../../../src/io/string-width.js';
import { runCli } from '../../support/cli.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

const KEYS = 20_000;

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  for (let i = 0; i < KEYS; i++) fx.sandbox.addKey(i % 7 === 0 ? `名前-${i}` : `key-${i}`);
});
afterAll(() => fx.close());

// Only against a hang: a generous bound (the linearity itself is shown in unit-table.test.ts).
it(`keys list with ${KEYS.toLocaleString('en-US')} keys on a terminal: every key, aligned, the key in use marked`, async () => {
  const r = await runCli(['keys', 'list', '--no-color'], { env: fx.env, tty: true, timeoutMs: 100_000 });
  expect(r.timedOut).toBe(false);
  expect(r.code).toBe(0);
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  expect(lines[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+LAST USED\s+CREATED$/);
  expect(lines).toHaveLength(KEYS + 2);
  // Every PREFIX starts in the same terminal column, wide names or not.
  const column = (line: string): number => displayWidth(line.slice(0, line.indexOf('crk_')));
  const header = displayWidth(lines[0]?.slice(0, lines[0].indexOf('PREFIX')) ?? '');
  expect(new Set(lines.slice(1).map(column))).toEqual(new Set([header]));
  expect(lines.filter((l) => l.includes('(in use)'))).toHaveLength(1);
  const lastWide = KEYS - 1 - ((KEYS - 1) % 7);
  expect(lines.some((l) => l.includes(`名前-${lastWide} `))).toBe(true);
}, 120_000);
