// truncateToWidth: text cut to a width (cli-truncate), measured again.
import { describe, expect, it } from 'vitest';
import { truncateToWidth } from '../../src/io/cli-truncate.js';
import { displayWidth } from '../../src/io/string-width.js';

const SGR = /\u001b\[[0-9;]*m/g;
const plain = (text: string): string => text.replace(SGR, '');

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
