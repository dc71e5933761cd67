// Tables and field views on a terminal (src/io/table.ts): fitted to the width, cut or wrapped by
// display width, coloured or not, written in one write, and laid out in work linear in the rows.
import { describe, expect, it, vi } from 'vitest';
import { createIO, type IO } from '../../src/io/io.js';
import { displayWidth } from '../../src/io/string-width.js';
import { printFields, printTable, type Column } from '../../src/io/table.js';
import { loadTerminalText } from '../../src/io/terminal-text.js';
import { testStreams } from '../../src/io/test-streams.js';
import { Redactor } from '../../src/text/redact.js';
import { sanitize } from '../../src/text/sanitize.js';

/** A terminal `columns` wide, in colour or not: the IO a run would have there. */
function tty(color: boolean, columns = 200): { io: IO; out: () => string; writes: () => number } {
  const streams = testStreams({ tty: true, columns });
  const write = vi.spyOn(streams.stdout, 'write');
  const io = createIO(streams, new Redactor(), { env: {}, noColor: !color, noInput: true });
  expect(io.color).toBe(color);
  return { io, out: () => streams.stdoutText(), writes: () => write.mock.calls.length };
}

const SGR = /\u001b\[[0-9;]*m/g;
const plain = (text: string): string => text.replace(SGR, '');

const COLUMNS: Column[] = [{ header: 'ID' }, { header: 'NAME', style: (t) => `\u001b[32m${t}\u001b[39m` }, { header: 'CREATED' }];

describe('printTable on a terminal', () => {
  it('aligns columns by display width, two spaces apart, no trailing blanks, styles around the text only', async () => {
    const t = tty(false);
    await printTable(t.io, COLUMNS, [
      ['key_1', 'ci', '2026-01-01'],
      ['key_22', '日本', ''],
    ]);
    expect(t.out()).toBe(
      'ID      NAME  CREATED\n' +
        'key_1   \u001b[32mci\u001b[39m    2026-01-01\n' +
        'key_22  \u001b[32m日本\u001b[39m\n',
    );
    expect(t.writes()).toBe(1);
  });

  it('bold headers on a colour terminal, the padding inside the bold, as cli-table3 drew them', async () => {
    const t = tty(true);
    await printTable(t.io, [{ header: 'ID' }, { header: 'NAME' }], [['key_1', 'a name']]);
    expect(t.out()).toBe('\u001b[1mID   \u001b[22m  \u001b[1mNAME  \u001b[22m\nkey_1  a name\n');
  });

  it('a header alone when there are no rows', async () => {
    const t = tty(false);
    await printTable(t.io, COLUMNS, []);
    expect(t.out()).toBe('ID  NAME  CREATED\n');
  });

  // A key list as `crawl keys list` draws it: the names are the free text.
  const names = ['deploy to production (eu-west and us-east)', '本番環境のデプロイ用キー（ヨーロッパ）', '🚀 release bot 👩‍👩‍👧 family', 'ci'];
  const keyRows = names.map((name, i) => [`key_${String(i).padStart(12, '0')}`, name, `crk_${'AbCdEfGh'.slice(0, 8)}`, `2026-11-22T00:4${i}:48Z (${i + 2} minutes ago)`]);
  const keyColumns = (colour: boolean): Column[] => [
    { header: 'ID' },
    {
      header: 'NAME',
      truncate: true,
      suffix: (row) => (row === 3 ? ' (in use)' : ''),
      style: colour ? (text, row) => (row === 3 ? text.slice(0, -' (in use)'.length) + `\u001b[32m (in use)\u001b[39m` : text) : undefined,
    },
    { header: 'PREFIX' },
    { header: 'CREATED', compact: (row) => `${row + 2} minutes ago`, optional: true },
  ];

  it.each([200, 120, 100, 80, 70, 60, 50])('fits %i columns: names cut with …, ids, prefixes and (in use) whole', async (width) => {
    for (const colour of [false, true]) {
      const t = tty(colour, width);
      await printTable(t.io, keyColumns(colour), keyRows);
      const lines = t.out().split('\n').filter((l) => l !== '');
      expect(lines).toHaveLength(keyRows.length + 1);
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
      const body = lines.slice(1).map(plain);
      keyRows.forEach((row, i) => {
        expect(body[i]?.startsWith(`${row[0]}  `)).toBe(true);
        expect(body[i]).toContain(row[2]);
      });
      expect(body[3]).toMatch(/ci \(in use\)/);
      // Every PREFIX in the same column, cut names or not.
      const at = (line: string): number => displayWidth(line.slice(0, line.indexOf('crk_')));
      expect(new Set(body.map(at)).size).toBe(1);
      // The ZWJ of the family goes (sanitize takes out zero-width characters): three emoji are left.
      const cut = body.filter((line, i) => !line.includes(sanitize(names[i])));
      if (width >= 140) expect(cut).toEqual([]);
      else expect(cut.every((line) => line.includes('…'))).toBe(true);
      if (colour) expect(t.out()).toContain('\u001b[32m (in use)\u001b[39m');
    }
  });

  it('at 200 columns the times are whole; at 80 they are relative only; at 50 CREATED is left out', async () => {
    const draw = async (width: number): Promise<string> => {
      const t = tty(false, width);
      await printTable(t.io, keyColumns(false), keyRows);
      return t.out();
    };
    expect(await draw(200)).toContain('2026-11-22T00:40:48Z (2 minutes ago)');
    const at80 = await draw(80);
    expect(at80).not.toContain('2026-11-22T');
    expect(at80).toMatch(/ 2 minutes ago\n/);
    const at50 = await draw(50);
    expect(at50.split('\n')[0]).toMatch(/^ID\s+NAME\s+PREFIX$/);
    expect(at50).not.toContain('minutes ago');
  });

  it('fixed columns wider than the terminal are drawn whole: nothing else can give', async () => {
    const t = tty(false, 20);
    await printTable(t.io, [{ header: 'ID' }, { header: 'NAME', truncate: true }], [['key_0123456789abcdef0123', 'a long name for a key']]);
    const row = t.out().split('\n')[1] ?? '';
    expect(row.startsWith('key_0123456789abcdef0123  ')).toBe(true);
    expect(row).toMatch(/…$/);
  });

  it('is linear in the number of rows: each row costs the same measuring, however many there are', async () => {
    // The work is counted, not timed: every call that measures, cuts or wraps text for the
    // terminal, and the characters it was given. A layout quadratic in the rows (the one this
    // replaced measured every cell again for each row) shows as a cost per row that grows.
    const text = await loadTerminalText();
    const work = { calls: 0, chars: 0 };
    const counted = <A extends unknown[], R>(fn: (t: string, ...rest: A) => R) => (t: string, ...rest: A): R => {
      work.calls++;
      work.chars += t.length;
      return fn(t, ...rest);
    };
    const { width, truncate, wrap } = text;
    const spies = [
      vi.spyOn(text, 'width').mockImplementation(counted(width)),
      vi.spyOn(text, 'truncate').mockImplementation(counted(truncate)),
      vi.spyOn(text, 'wrap').mockImplementation(counted(wrap)),
    ];
    const costOf = async (n: number): Promise<{ calls: number; chars: number }> => {
      const rows = Array.from({ length: n }, (_, i) => [`key_${i % 10}`, `name ${i % 10} 日本`, '2026-01-01T00:00:00Z (3 hours ago)']);
      const t = tty(true, 60);
      work.calls = work.chars = 0;
      await printTable(t.io, COLUMNS, rows);
      expect(t.out().split('\n')).toHaveLength(n + 2);
      return { ...work };
    };
    try {
      const [c1, c2, c3] = [await costOf(100), await costOf(200), await costOf(300)];
      // The same rows again cost exactly what the first hundred did: a + b·n, nothing more.
      expect(c2.calls - c1.calls).toBe(c3.calls - c2.calls);
      expect(c2.chars - c1.chars).toBe(c3.chars - c2.chars);
      expect(c2.calls - c1.calls).toBeGreaterThan(0);
      expect(c2.calls - c1.calls).toBeLessThanOrEqual(100 * 3 * 3);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

describe('printFields on a terminal', () => {
  it('wraps long values under their column at the width; fixed values whole; short ones as they are', async () => {
    const t = tty(false, 40);
    await printFields(t.io, [
      ['Job', 'job_with_a_rather_long_identifier_0123456789', { fixed: true }],
      ['Status', 'errored'],
      ['Error', 'Robots.txt disallowed the remaining pages of the site after 17 pages'],
      ['URL', 'https://docs.example.com/a/very/long/path/that/cannot/break'],
    ]);
    expect(t.out()).toBe(
      'Job     job_with_a_rather_long_identifier_0123456789\n' +
        'Status  errored\n' +
        'Error   Robots.txt disallowed the\n' +
        '        remaining pages of the site\n' +
        '        after 17 pages\n' +
        'URL     https://docs.example.com/a/very…\n',
    );
  });
});
