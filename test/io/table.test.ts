import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { truncateToWidth } from '../../src/io/cli-truncate.js';
import { createIO, type IO } from '../../src/io/io.js';
import { displayWidth } from '../../src/io/string-width.js';
import { printFields, printTable, type Column } from '../../src/io/table.js';
import { loadTerminalText } from '../../src/io/terminal-text.js';
import { testStreams } from '../../src/io/test-streams.js';
import { Redactor } from '../../src/text/redact.js';
import { sanitize } from '../../src/text/sanitize.js';
import { planColumns, type ColumnNeeds } from '../../src/text/table-layout.js';
import { wrapWords } from '../../src/text/wrap.js';

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

describe('displayWidth (string-width)', () => {
  it.each([
    ['', 0],
    ['plain ascii', 11],
    ['\u001b[1mbold\u001b[22m', 4],
    ['日本語', 6],
    ['ｆｕｌｌ', 8],
    ['한국어', 6],
    ['e\u0301', 1],
    ['🚀', 2],
    ['👍🏽', 2],
    ['✌🏿', 2],
    ['☺️', 2],
    ['🇺🇸', 2],
    ['1️⃣', 2],
    ['ünïcödé ✓', 9],
    // Sequences the hand-written measure this replaced got wrong: a ZWJ family, a Thai mark, a soft hyphen.
    ['👩‍👩‍👧', 2],
    ['ก่', 1],
    ['a\u00adb', 2],
  ])('%j is %i columns', (text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});

describe('truncateToWidth (cli-truncate, measured again)', () => {
  it('never ends wider than asked, where a wide character straddles the limit (cli-truncate alone overflows by one)', () => {
    const texts = ['xxx日本語日本語', '日本語のテキストです長い名前', 'a日b本c語d', '中文名称测试键', '🔑 key 🚀 deploy 👩‍👩‍👧', 'ｆｕｌｌｗｉｄｔｈ'];
    for (const text of texts) {
      for (let columns = 1; columns <= 20; columns++) {
        const cut = truncateToWidth(text, columns);
        expect(displayWidth(cut), `${text} in ${columns}`).toBeLessThanOrEqual(columns);
        if (displayWidth(text) <= columns) expect(cut).toBe(text);
        else expect(cut.endsWith('…')).toBe(true);
      }
    }
    expect(truncateToWidth('xxx日本語日本語', 5)).toBe('xxx…');
  });

  it('keeps colour codes whole: a cut never leaves part of an escape sequence', () => {
    const green = '\u001b[32m緑の日本語テキスト\u001b[39m';
    for (let columns = 1; columns <= 16; columns++) {
      const cut = truncateToWidth(green, columns);
      expect(displayWidth(cut)).toBeLessThanOrEqual(columns);
      // Once the codes are taken out, no ESC and no half of a code is left.
      expect(plain(cut)).not.toMatch(/[\u001b\u009b]|\[\d*m/);
    }
  });
});

describe('wrapWords', () => {
  it('breaks at spaces within the width; a longer word gets a line of its own', () => {
    expect(wrapWords('the quick brown fox jumps', 10)).toEqual(['the quick', 'brown fox', 'jumps']);
    expect(wrapWords('a https://example.com/very/long b', 10)).toEqual(['a', 'https://example.com/very/long', 'b']);
    expect(wrapWords('', 10)).toEqual(['']);
  });
});

describe('planColumns', () => {
  const fixed = (width: number, optional = false): ColumnNeeds => ({ full: width, truncate: false, min: width, optional });
  const free = (width: number, min = 8): ColumnNeeds => ({ full: width, truncate: true, min, optional: false });

  it('cuts the widest free-text column first, and gives the rest to the leftmost', () => {
    const plan = planColumns([fixed(10), free(40), free(12), fixed(5)], 60, 2);
    expect(plan.map((p) => p.width)).toEqual([10, 27, 12, 5]);
    expect(plan.reduce((s, p) => s + p.width, 0) + 6).toBe(60);
  });

  it('takes shorter forms before cutting, and leaves optional columns out only when nothing else fits', () => {
    const needs = [fixed(16), free(20), fixed(12), { ...fixed(31, true), compact: 10 }, { ...fixed(31, true), compact: 13 }];
    expect(planColumns(needs, 200, 2).map((p) => [p.shown, p.compact, p.width])).toEqual([
      [true, false, 16], [true, false, 20], [true, false, 12], [true, false, 31], [true, false, 31],
    ]);
    const at80 = planColumns(needs, 80, 2);
    expect(at80.map((p) => p.compact)).toEqual([false, false, false, true, true]);
    expect(at80.map((p) => p.width)).toEqual([16, 20, 12, 10, 13]);
    const at56 = planColumns(needs, 56, 2);
    expect(at56.map((p) => p.shown)).toEqual([true, true, true, true, false]);
    expect(at56.map((p) => p.width)).toEqual([16, 12, 12, 10, 13]);
    const at50 = planColumns(needs, 50, 2);
    expect(at50.map((p) => p.shown)).toEqual([true, true, true, false, false]);
    expect(at50.filter((p) => p.shown).reduce((s, p) => s + p.width + 2, -2)).toBe(50);
  });

  it('property: what can fit does fit; fixed columns keep their width; a cut column keeps its minimum', () => {
    const column = fc.record({
      full: fc.integer({ min: 1, max: 60 }),
      compact: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
      truncate: fc.boolean(),
      min: fc.integer({ min: 1, max: 20 }),
      optional: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(column, { minLength: 1, maxLength: 7 }), fc.integer({ min: 10, max: 200 }), (needs, total) => {
        const plan = planColumns(needs, total, 2);
        const shortest = (n: ColumnNeeds): number => Math.min(n.full, n.compact ?? n.full);
        const floor = needs.filter((n) => !n.optional).reduce((s, n) => s + (n.truncate ? Math.min(shortest(n), n.min) : shortest(n)) + 2, -2);
        const used = plan.filter((p) => p.shown).reduce((s, p) => s + p.width + 2, -2);
        if (floor <= total) expect(used).toBeLessThanOrEqual(total);
        plan.forEach((p, i) => {
          const n = needs[i] as ColumnNeeds;
          if (!n.optional) expect(p.shown).toBe(true);
          const natural = p.compact ? (n.compact ?? n.full) : n.full;
          if (!n.truncate) expect(p.width).toBe(natural);
          else expect(p.width).toBeGreaterThanOrEqual(Math.min(natural, n.min));
          expect(p.width).toBeLessThanOrEqual(natural);
        });
      }),
    );
  });
});

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
      const [c1, c2, c3] = [await costOf(1_000), await costOf(2_000), await costOf(3_000)];
      // The same rows again cost exactly what the first thousand did: a + b·n, nothing more.
      expect(c2.calls - c1.calls).toBe(c3.calls - c2.calls);
      expect(c2.chars - c1.chars).toBe(c3.chars - c2.chars);
      expect(c2.calls - c1.calls).toBeGreaterThan(0);
      expect(c2.calls - c1.calls).toBeLessThanOrEqual(1_000 * 3 * 3);
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
