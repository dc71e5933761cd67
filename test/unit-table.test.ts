import { describe, expect, it } from 'vitest';
import type { IO } from '../src/io/io.js';
import { printTable, type Column } from '../src/io/table.js';
import { displayWidth } from '../src/text/width.js';
import { expectLinear } from './support/linear.js';

function tty(color: boolean): { io: IO; out: () => string; writes: () => number } {
  let text = '';
  let writes = 0;
  const io = {
    stdoutIsTTY: true,
    color,
    stdout: {
      write: (t: string) => {
        text += t;
        writes++;
        return true;
      },
    },
  } as unknown as IO;
  return { io, out: () => text, writes: () => writes };
}

const COLUMNS: Column[] = [{ header: 'ID' }, { header: 'NAME', style: (t) => `\u001b[32m${t}\u001b[39m` }, { header: 'CREATED' }];

describe('displayWidth', () => {
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
  ])('%j is %i columns', (text, width) => {
    expect(displayWidth(text)).toBe(width);
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

  it('is linear in the number of rows: ten times the rows cost about ten times the work', async () => {
    const made = new Map([2_000, 20_000].map((n) => [n, Array.from({ length: n }, (_, i) => [`key_${i}`, `name ${i} 日本`, '2026-01-01T00:00:00Z (3 hours ago)'])]));
    // Linear is about 10; the quadratic layout this replaced was about 100 (test/support/linear.ts).
    await expectLinear(async (n) => {
      const t = tty(true);
      await printTable(t.io, COLUMNS, made.get(n) as unknown[][]);
      expect(t.out().split('\n')).toHaveLength(n + 2);
    }, 2_000, 20_000);
  });
});
