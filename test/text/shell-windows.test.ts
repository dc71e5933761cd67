// Hints on Windows (src/text/shell.ts): no quoting means the same in cmd and PowerShell, so only
// words safe bare in both are spliced into a command, or in double quotes where nothing but
// letters (of any script) needs them; anything else is named, never pasted. Under
// Git Bash or MSYS2 hints are POSIX; where the shell cannot be told, they hold for all three.
import { describe, expect, it } from 'vitest';
import { commandLine, environmentLine, programWords, quotingFor, shellQuote, windowsWord, withFileOnStdin, withSuggestionFlags } from '../../src/text/shell.js';
import { wordsOf, wordsOfEach } from '../support/shell-words.js';

const HOSTILE = ['x&calc', 'a|b', 'a>b', 'a<b', '%PATH%', 'a^b', "it's", 'a"b', 'two words', '$(calc)', '`calc`', 'a;b', 'a,b', '@args', '{x}', '(x)', 'a=b', 'x\ny'];

describe('a word safe bare in cmd and PowerShell', () => {
  it.each(['job_1', 'k-2.3', 'C:\\ci\\key.txt', 'https://crawl.example/v1', '--yes', 'a+b'])('%s is kept as it is', (word) => {
    expect(windowsWord(word)).toBe(word);
  });
  it.each(HOSTILE)('%j is not', (word) => {
    expect(windowsWord(word)).toBeUndefined();
  });
});

describe('a command line for Windows', () => {
  it.each(HOSTILE)('an operand %j is named, not spliced', (id) => {
    const line = commandLine({ command: ['crawl', 'job', 'status'], operands: [id] }, 'windows');
    expect(line).toBe('crawl job status <id>');
    expect(line).not.toContain(id);
  });

  it('safe words stay; a flag\'s unsafe value is named by its flag; an operand may say what it is', () => {
    expect(commandLine({ command: ['crawl', '--profile', 'work', 'keys', 'revoke'], operands: ['key_1'], flags: ['--yes'] }, 'windows')).toBe('crawl --profile work keys revoke key_1 --yes');
    expect(commandLine({ command: ['crawl', '--profile', 'a&b', 'job', 'watch'], operands: ['j1'] }, 'windows')).toBe('crawl --profile <profile> job watch j1');
    expect(commandLine({ command: ['crawl', 'keys', 'revoke'], operands: ['a b'], operandName: 'key id' }, 'windows')).toBe('crawl keys revoke <key id>');
  });

  it('an operand that starts with "-" is named: `--` does not survive PowerShell calling crawl.ps1', () => {
    expect(commandLine({ command: ['crawl', 'job', 'status'], operands: ['--force'], flags: ['--yes'] }, 'windows')).toBe('crawl job status <id> --yes');
    expect(commandLine({ command: ['crawl', 'job', 'status'], operands: ['-x'] }, 'windows')).toBe('crawl job status <id>');
    expect(commandLine({ command: ['crawl', 'job', 'status'], operands: ['--force'], flags: ['--yes'] })).toBe('crawl job status --yes -- --force');
  });

  it('POSIX quoting is unchanged', () => {
    expect(commandLine({ command: ['crawl', 'job', 'status'], operands: ['x&calc'] })).toBe(`crawl job status ${shellQuote('x&calc')}`);
    expect(commandLine({ command: ['crawl', 'job', 'status'], operands: ['x&calc'] }, 'posix')).toBe("crawl job status 'x&calc'");
  });

  it('the run\'s flags put into a hint\'s commands follow the same rule', () => {
    expect(withSuggestionFlags('run `crawl auth login`', ['--profile', 'work'], 'windows')).toBe('run `crawl --profile work auth login`');
    expect(withSuggestionFlags('run `crawl auth login`', ['--profile', 'x&calc'], 'windows')).toBe('run `crawl --profile <profile> auth login`');
    expect(withSuggestionFlags('run `crawl auth login`', ['--profile', 'x&calc'])).toBe("run `crawl --profile 'x&calc' auth login`");
  });
});

describe('letters of any script: in double quotes, which cmd, PowerShell and bash read literally', () => {
  // Latin with diacritics (precomposed and as a letter and a combining mark), Greek, Cyrillic, CJK, Devanagari, digits beyond ASCII.
  const NAMES = ['müller', 'José', 'Jose\u0301', 'Ørsted-2', 'ελένη', 'Дмитрий', '日本_1', 'देव', '٣٤'];

  it.each(NAMES)('%j as a flag\'s value and as an operand, for cmd and PowerShell, and where the shell cannot be told', (name) => {
    for (const quoting of ['windows', 'both'] as const) {
      expect(commandLine({ command: ['crawl', '--profile', name, 'job', 'status'], operands: [name] }, quoting)).toBe(`crawl --profile "${name}" job status "${name}"`);
      expect(withSuggestionFlags('run `crawl auth login`', ['--profile', name], quoting)).toBe(`run \`crawl --profile "${name}" auth login\``);
    }
  });

  it('bash reads the `both` form back as the name itself; POSIX quoting is unchanged (single quotes)', async () => {
    const both = NAMES.map((name) => commandLine({ command: ['crawl', '--profile', name, 'auth', 'login'] }, 'both'));
    expect(await wordsOfEach(both)).toEqual(NAMES.map((name) => ['crawl', '--profile', name, 'auth', 'login']));
    const posix = commandLine({ command: ['crawl', '--profile', 'müller', 'auth', 'login'] });
    expect(posix).toBe("crawl --profile 'müller' auth login");
    expect(await wordsOf(posix)).toEqual(['crawl', '--profile', 'müller', 'auth', 'login']);
  });

  it('a path with them goes in double quotes, as one with a space does: removing a lock, starting a clone', async () => {
    const lock = 'C:\\Users\\José Núñez\\AppData\\Roaming\\crawl\\config.json.lock';
    expect(programWords(['cmd', '/c', 'del', lock], 'windows', () => 'path')).toBe(`cmd /c del "${lock}"`);
    const script = 'C:\\Users\\Zoë\\crawl\\bin\\crawl.js';
    expect(programWords(['node', script], 'windows')).toBe(`node "${script}"`);
    expect(programWords(['node', script], 'both')).toBe(`node "${script}"`);
    expect(await wordsOf(programWords(['node', script], 'both'))).toEqual(['node', script]);
  });

  // Not letters: what PowerShell reads as a quote (U+2018 to U+201E) or as `-` (U+2013 to U+2015),
  // white space and controls beyond ASCII, invisible characters, full-width `"` and `$`; and with
  // letters, everything that was named before (`$`, `%`, `!`, backtick, `"`, `&`; a space, in a command line).
  const NOT_LETTERS = [
    'mül\u2018ler', 'mül\u2019ler', 'mül\u201aler', 'mül\u201bler', 'mül\u201cler', 'mül\u201dler', 'mül\u201eler',
    'mül\u2013ler', 'mül\u2014ler', 'mül\u2015ler', '\u2013profile',
    'mül\u00a0ler', 'mül\u0085ler', 'mül\u2028ler', 'mül\u200bler', 'mül\ufeffler', 'mül\uff02ler', 'mül\uff04ler',
    'mül$ler', 'mül%PATH%', 'José!', 'mül`ler', 'mül"ler', 'mül&calc', 'mül|ler', 'mül(1)', 'mül^ler', 'José Núñez', 'müller\n',
  ];

  it.each(NOT_LETTERS)('%j is still named, in a command line for cmd and PowerShell and for all three', (name) => {
    for (const quoting of ['windows', 'both'] as const) {
      expect(commandLine({ command: ['crawl', '--profile', name, 'job', 'status'], operands: [name] }, quoting)).toBe('crawl --profile <profile> job status <id>');
    }
  });

  it.each(NOT_LETTERS.filter((name) => name !== 'José Núñez'))('%j in a path is named too', (name) => {
    expect(programWords(['cmd', '/c', 'del', `C:\\Users\\${name}\\config.json.lock`], 'windows', () => 'path')).toBe('cmd /c del <path>');
  });

  it('a path ending in `\\`, or for bash too holding `\\\\`, is named whatever letters it has', () => {
    expect(programWords(['cmd', '/c', 'del', 'C:\\Zoë\\'], 'windows', () => 'path')).toBe('cmd /c del <path>');
    expect(programWords(['node', '\\\\serveur\\partagé\\crawl.js'], 'both', () => 'path')).toBe('node <path>');
  });
});

describe('a file on standard input', () => {
  it('POSIX shells: `< file`; Windows: Get-Content piped (PowerShell rejects `<`); where the shell cannot be told, both, named', () => {
    expect(withFileOnStdin('crawl auth login --with-key', 'keyfile')).toBe('`crawl auth login --with-key < keyfile`');
    expect(withFileOnStdin('crawl auth login --with-key', 'keyfile', 'windows')).toBe('`Get-Content keyfile | crawl auth login --with-key`');
    expect(withFileOnStdin('crawl auth login --with-key', 'keyfile', 'both')).toBe(
      '`crawl auth login --with-key < keyfile` in bash or cmd, `Get-Content keyfile | crawl auth login --with-key` in PowerShell',
    );
  });
});

describe('the shell in use, not only the system', () => {
  it.each([
    ['linux', {}, 'posix'],
    ['darwin', { MSYSTEM: 'MINGW64' }, 'posix'],
    ['freebsd', {}, 'posix'],
    // cmd and PowerShell consoles set neither SHELL nor TERM.
    ['win32', {}, 'windows'],
    ['win32', { MSYSTEM: '' }, 'windows'],
    // Git Bash and MSYS2: their bash.
    ['win32', { MSYSTEM: 'MINGW64' }, 'posix'],
    ['win32', { msystem: 'UCRT64', TERM: 'xterm' }, 'posix'],
    // A POSIX shell or terminal named without MSYS (Cygwin's mintty, an ssh session): it cannot be told.
    ['win32', { TERM: 'xterm-256color' }, 'both'],
    ['win32', { SHELL: '/bin/bash' }, 'both'],
  ] as const)('%s with %j: %s', (os, env, quoting) => {
    expect(quotingFor({ os }, env)).toBe(quoting);
  });
});

describe('where the shell cannot be told: words that mean the same in bash, cmd and PowerShell', () => {
  it('a command line splices only words safe bare in all three: a backslash (an escape for bash) is named too', () => {
    expect(commandLine({ command: ['crawl', '--profile', 'work', 'keys', 'revoke'], operands: ['key_1'], flags: ['--yes'] }, 'both')).toBe('crawl --profile work keys revoke key_1 --yes');
    expect(commandLine({ command: ['crawl', 'job', 'status'], operands: ['a\\b'] }, 'both')).toBe('crawl job status <id>');
    expect(commandLine({ command: ['crawl', 'job', 'status'], operands: ['--force'] }, 'both')).toBe('crawl job status <id>');
    for (const id of HOSTILE) expect(commandLine({ command: ['crawl', 'job', 'status'], operands: [id] }, 'both')).toBe('crawl job status <id>');
    expect(withSuggestionFlags('run `crawl auth login`', ['--profile', 'x\\y'], 'both')).toBe('run `crawl --profile <profile> auth login`');
  });

  it('a program\'s words: a path in double quotes, which bash reads back as itself; one with `\\\\` (bash reads `\\`) named', async () => {
    const path = "C:\\Users\\O'Brien [1]\\crawl\\bin\\crawl.js";
    const line = programWords(['node', path], 'both');
    expect(line).toBe(`node "${path}"`);
    expect(await wordsOf(line)).toEqual(['node', path]);
    expect(programWords(['node', '\\\\server\\share\\crawl.js'], 'both', () => 'path')).toBe('node <path>');
    expect(programWords(['node', 'C:\\ad$min\\crawl.js'], 'both', () => 'path')).toBe('node <path>');
  });
});

describe('a program\'s words for Windows (crawl as it was started, the command that removes a lock)', () => {
  it('a word safe bare stays bare; a path with a space, brackets or an apostrophe goes in double quotes, literal in both shells', () => {
    expect(programWords(['npx', '@webcrawl/cli'], 'windows')).toBe('npx "@webcrawl/cli"');
    expect(programWords(['node', 'C:\\Users\\Ada Lovelace\\crawl\\bin\\crawl.js'], 'windows')).toBe('node "C:\\Users\\Ada Lovelace\\crawl\\bin\\crawl.js"');
    expect(programWords(['cmd', '/c', 'del', "C:\\Users\\O'Brien [1]\\config.json.lock"], 'windows')).toBe(`cmd /c del "C:\\Users\\O'Brien [1]\\config.json.lock"`);
    expect(programWords(['node', 'C:\\crawl\\bin\\crawl.js'], 'windows')).toBe('node C:\\crawl\\bin\\crawl.js');
  });

  // `$min` and backticks expand in PowerShell's double quotes, `%VAR%` and `!VAR!` in cmd's; cmd
  // reads `&` and the like in the bare word PowerShell passes on when there is no space to quote.
  it.each([
    'C:\\Users\\ad$min\\AppData\\Roaming\\crawl\\config.json.lock',
    'C:\\Users\\%USERNAME%\\config.json.lock',
    'C:\\a`b\\config.json.lock',
    'C:\\Users\\x&calc\\config.json.lock',
    'C:\\Users\\a!b!\\config.json.lock',
    'C:\\Users\\a"b\\config.json.lock',
    'C:\\Users\\a\u201cb\\config.json.lock',
    'C:\\Users\\a(1)\\config.json.lock',
    'C:\\Users\\a,b;c=d\\config.json.lock',
    'C:\\a b\\',
    'C:\\a\nb',
  ])('%j is named, never spliced', (path) => {
    const line = programWords(['cmd', '/c', 'del', path], 'windows', () => 'path');
    expect(line).toBe('cmd /c del <path>');
  });

  it('a placeholder says what the word is; POSIX quoting is unchanged', () => {
    expect(programWords(['node', 'C:\\ad$min\\bin\\crawl.js'], 'windows', (i) => `word ${i}`)).toBe('node <word 1>');
    expect(programWords(['node', 'C:\\ad$min\\bin\\crawl.js'], 'windows')).toBe('node <value>');
    expect(programWords(['rm', '/home/ad$min/config.json.lock'])).toBe(`rm ${shellQuote('/home/ad$min/config.json.lock')}`);
  });
});

describe('the line that sets variables, for Windows', () => {
  it('PowerShell\'s $env: with single-quoted values, one statement a variable', () => {
    expect(environmentLine([['CRAWL_BASE_URL', 'http://127.0.0.1:8787'], ['CRAWL_API_KEY', 'crk_abc']], 'windows')).toBe(
      "$env:CRAWL_BASE_URL = 'http://127.0.0.1:8787'; $env:CRAWL_API_KEY = 'crk_abc'",
    );
  });

  it('a quote in a value is doubled, so the value stays one literal string (typographic ones too: PowerShell reads them as \')', () => {
    expect(environmentLine([['X', "it's $HOME"]], 'windows')).toBe("$env:X = 'it''s $HOME'");
    expect(environmentLine([['X', 'a\u2019b']], 'windows')).toBe("$env:X = 'a\u2019\u2019b'");
  });
});
