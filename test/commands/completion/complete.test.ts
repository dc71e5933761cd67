// `crawl __complete` in this process, as the scripts of `crawl completion <shell>` ask it: the words
// counted, each behind a colon (src/commands/completion/lib/protocol.ts). What a dropped `--` or
// empty argument (PowerShell calling npm's crawl.ps1) would do to the request; what the earlier
// form of the scripts still gets; the values that are files or commands, and methods in either case.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, tempDir } from '../../support/harness.js';
import { sandboxFixture, type SandboxFixture } from '../../support/sandbox.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'crawl-complete-protocol-'));
  mkdirSync(join(dir, 'config'));
  writeFileSync(join(dir, 'config', 'config.json'), JSON.stringify({ profiles: { default: {}, ci: {}, Prod: {} } }), { mode: 0o600 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What `crawl __complete <args>` prints, line by line (`value<TAB>description` cut to the value, or the whole line when it starts with a colon). */
async function ask(...args: string[]): Promise<string[]> {
  const r = await crawl(['__complete', ...args], { env: { CRAWL_CONFIG_DIR: join(dir, 'config'), CRAWL_JOB_HISTORY: 'off' } });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (l.startsWith(':') ? l : (l.split('\t')[0] ?? '')));
}

/** As the scripts ask: the count, then each word behind a colon. */
function complete(...words: string[]): Promise<string[]> {
  return ask(String(words.length), ...words.map((w) => `:${w}`));
}

describe('the request: counted words behind colons', () => {
  it('an option-like word is a word, never an option of __complete (no help, no version)', async () => {
    expect(await complete('--profile', '')).toEqual(['Prod', 'ci', 'default']);
    expect(await complete('job', '--help')).toEqual([]);
    expect(await complete('job', 'watch', '--int')).toEqual(['--interval']);
    expect(await complete('-V')).toEqual(['-V']);
    expect(await complete('--', '')).toEqual(expect.arrayContaining(['job', 'keys']));
  });

  it('a `--` before the words (the form of earlier scripts, kept by some shells) changes nothing', async () => {
    expect(await ask('--', '2', ':--profile', ':')).toEqual(['Prod', 'ci', 'default']);
    expect(await ask('2', ':--profile', ':')).toEqual(['Prod', 'ci', 'default']);
  });

  it('words that do not add up to their count offer nothing rather than something wrong', async () => {
    // An empty word dropped on the way: the profile's value would be taken for a command.
    expect(await ask('2', ':--profile')).toEqual([]);
    expect(await ask('1', ':--profile', ':')).toEqual([]);
    expect(await ask('0')).toEqual([]);
  });

  it('the earlier form (`__complete -- <words>`) still answers, with `:files` alone where its scripts can use it', async () => {
    expect(await ask('--', '--profile', '')).toEqual(['Prod', 'ci', 'default']);
    expect(await ask('--', 'job', 'pages', 'x', '--output', '')).toEqual([':files']);
    expect(await ask('--', 'job', 'pages', 'x', '--output=d')).toEqual([':files']);
    // What those scripts have no answer for: nothing.
    expect(await ask('--', 'api', 'x', '-F', 'body=@')).toEqual([]);
    expect(await ask('--', 'keys', 'rotate', '--to-command', 'g')).toEqual([]);
  });
});

describe('files and commands: the shell\'s own, after the part crawl names', () => {
  it('file names for --output, --output-file and --input: the whole word, or after --flag=', async () => {
    expect(await complete('job', 'pages', 'x', '--output', 'di')).toEqual([':files\t']);
    expect(await complete('job', 'pages', 'x', '--output=di')).toEqual([':files\t--output=']);
    expect(await complete('keys', 'create', 'ci', '--output-file=')).toEqual([':files\t--output-file=']);
    expect(await complete('api', 'api/keys', '--input', '')).toEqual([':files\t']);
  });

  it('-F name=@file and --field=name=@file: file names after the @; -f (a plain string) and a value without @: nothing', async () => {
    expect(await complete('api', 'api/keys', '-F', 'body=@pa')).toEqual([':files\tbody=@']);
    expect(await complete('api', 'api/keys', '-F', 'body=@')).toEqual([':files\tbody=@']);
    expect(await complete('api', 'api/keys', '--field', 'a=@./x')).toEqual([':files\ta=@']);
    expect(await complete('api', 'api/keys', '--field=body=@pa')).toEqual([':files\t--field=body=@']);
    expect(await complete('api', 'api/keys', '-f', 'body=@pa')).toEqual([]);
    expect(await complete('api', 'api/keys', '-F', 'body=pa')).toEqual([]);
  });

  it('commands on PATH for --to-command and for config set key-command / key-store-command; only the command line\'s first word', async () => {
    expect(await complete('keys', 'rotate', '--to-command', 'g')).toEqual([':commands\t']);
    expect(await complete('keys', 'rotate', '--to-command=g')).toEqual([':commands\t--to-command=']);
    expect(await complete('config', 'set', 'key-command', '')).toEqual([':commands\t']);
    expect(await complete('config', 'set', 'key-store-command', 'pa')).toEqual([':commands\t']);
    expect(await complete('keys', 'rotate', '--to-command', 'gh secret')).toEqual([]);
    expect(await complete('config', 'set', 'base-url', '')).toEqual([]);
  });
});

describe("a group's default command (`crawl job <id>` is `crawl job status <id>`)", () => {
  it("after the id, the default command's flags and operands, as after its name", async () => {
    expect(await complete('job', 'demo-small', '--e')).toEqual(['--exit-status']);
    expect(await complete('job', 'demo-small', '--')).toEqual(await complete('job', 'status', 'demo-small', '--'));
    expect(await complete('job', 'demo-small', '--')).toContain('--exit-status');
    // Where the id goes, the group's commands are still offered; a group without a default offers nothing after its operand.
    expect(await complete('job', 'st')).toEqual(['status']);
    expect(await complete('keys', 'x', '--')).not.toContain('--yes');
  });
});

describe("a group's help command (`crawl job help <command>`)", () => {
  it("offers the group's commands, never a job id, and nothing after the command", async () => {
    expect(await complete('job', 'help', '')).toEqual(['status', 'watch', 'pages', 'cancel']);
    expect(await complete('keys', 'help', 'cr')).toEqual(['create']);
    expect(await complete('job', 'help', 'status', '')).toEqual([]);
    // `crawl help` is crawl's own command: topics and commands, then a group's commands; after a
    // topic, a command or `help` itself, nothing (`crawl help help exit-codes` is no help topic).
    expect(await complete('help', 'e')).toEqual(['exit-codes', 'environment']);
    expect(await complete('help', 'help', '')).toEqual([]);
    expect(await complete('help', 'job', '')).toEqual(['status', 'watch', 'pages', 'cancel']);
    expect(await complete('help', 'keys', 'l')).toEqual(['list']);
    expect(await complete('help', 'exit-codes', '')).toEqual([]);
    expect(await complete('help', 'job', 'status', '')).toEqual([]);
    // Where an id goes, the ids looked at lately are offered; after `job help`, never.
    const state = tempDir('crawl-complete-history-');
    const fx = await sandboxFixture();
    try {
      const env = { ...fx.env, XDG_STATE_HOME: state.dir };
      expect((await crawl(['job', 'demo-small'], { env })).code).toBe(0);
      const withHistory = async (...words: string[]): Promise<string[]> => {
        const r = await crawl(['__complete', String(words.length), ...words.map((w) => `:${w}`)], { env });
        expect(r.code).toBe(0);
        expect(r.stderr).toBe('');
        return r.stdout.split('\n').filter((l) => l !== '').map((l) => l.split('\t')[0] ?? '');
      };
      expect(await withHistory('job', '')).toContain('demo-small');
      expect(await withHistory('job', 'help', '')).toEqual(['status', 'watch', 'pages', 'cancel']);
    } finally {
      await fx.close();
      state.cleanup();
    }
  });
});

describe('values typed in another case', () => {
  it('-X g offers GET, --method=p the methods with P; the case typed wins where something matches in it', async () => {
    expect(await complete('api', 'api/keys', '-X', 'g')).toEqual(['GET']);
    expect(await complete('api', 'api/keys', '--method', 'de')).toEqual(['DELETE']);
    expect(await complete('api', 'api/keys', '--method=p')).toEqual(['--method=POST', '--method=PUT', '--method=PATCH']);
    expect(await complete('--profile', 'p')).toEqual(['Prod']);
    expect(await complete('--profile', 'P')).toEqual(['Prod']);
    expect(await complete('JO')).toEqual(['job']);
    expect(await complete('api', 'api/keys', '-X', 'x')).toEqual([]);
  });
});

/** What npm's crawl.ps1 (PowerShell calling a script) and PowerShell before 7.3 do to the arguments on the way: a bare `--` and empty ones are dropped. */
function throughPowerShell(args: readonly string[]): string[] {
  return args.filter((arg) => arg !== '--' && arg !== '');
}

describe('PowerShell', () => {
  it('a request through crawl.ps1 gets the answer it would get direct', async () => {
    for (const words of [['--profile', ''], ['api', 'x', '--', ''], ['job', '--help'], ['--profile=', ''], ['']]) {
      const request = [String(words.length), ...words.map((w) => `:${w}`)];
      expect(throughPowerShell(request)).toEqual(request);
      expect(await ask(...throughPowerShell(request))).toEqual(await ask(...request));
    }
    expect(await ask(...throughPowerShell(['2', ':--profile', ':']))).toEqual(['Prod', 'ci', 'default']);
  });

  it('the script sends the words counted behind colons, leaves out those after the cursor, and takes the quotes off', async () => {
    const r = await crawl(['completion', 'powershell'], { env: {} });
    expect(r.stdout).toContain('& crawl __complete $words.Count @asked 2>$null');
    expect(r.stdout).toContain("ForEach-Object { ':' + $_ }");
    expect(r.stdout).toContain('if ($extent.StartOffset -ge $cursorPosition) { break }');
    // A quoted word's value, not its text; the word at the cursor cut there, an opening quote dropped.
    expect(r.stdout).toMatch(/StringConstantExpressionAst\][\s\S]*\$element\.Value/);
    expect(r.stdout).toContain('$cursorPosition - $extent.StartOffset');
    expect(r.stdout).not.toContain('__complete --');
  });

  // No PowerShell runs here (none is packaged for Debian): what the script holds is what is checked.
  it("the call to crawl is read as UTF-8, not in the console's code page, which is put back after it", async () => {
    const script = (await crawl(['completion', 'powershell'], { env: {} })).stdout;
    const saved = script.indexOf('$encoding = [Console]::OutputEncoding');
    const utf8 = script.indexOf('[Console]::OutputEncoding = [System.Text.UTF8Encoding]::new($false)');
    const call = script.indexOf('$out = @(& crawl __complete');
    const restored = script.indexOf('} finally {\n        if ($switched) { [Console]::OutputEncoding = $encoding }\n    }');
    expect([saved, utf8, call, restored].every((at) => at >= 0)).toBe(true);
    expect(saved < utf8 && utf8 < call && call < restored).toBe(true);
    // Inside the try whose finally puts it back; and only one call to crawl, the one switched.
    expect(script.lastIndexOf('try {', call)).toBeGreaterThan(saved);
    expect(script.match(/& crawl /g)).toHaveLength(1);
  });
});

describe('what the line may hold', () => {
  it('a part before the file name with a control character in it is not handed back (it would break the answer\'s line)', async () => {
    expect(await complete('api', 'api/keys', '-F', 'a\tb=@x')).toEqual([]);
    expect(await complete('api', 'api/keys', '-F', 'a\nb=@x')).toEqual([]);
    expect(await complete('api', 'api/keys', '-F', 'ab=@x')).toEqual([':files\tab=@']);
  });
});

describe('crawl completion --help', () => {
  it('gives the line for each shell, what zsh needs first, and what Windows PowerShell needs to run it', async () => {
    const r = await crawl(['completion', '--help'], { env: {} });
    expect(r.code).toBe(0);
    // A comment fitted to the width goes on after `# ` on the next line.
    const text = r.stdout.replace(/\n\s*# /g, ' ');
    for (const line of ['eval "$(crawl completion bash)"', 'eval "$(crawl completion zsh)"', 'crawl completion fish | source', 'crawl completion powershell | Out-String | Invoke-Expression']) {
      expect(r.stdout).toContain(line);
    }
    expect(text).toContain('after the line `autoload -Uz compinit && compinit`');
    expect(text).toContain('Set-ExecutionPolicy -Scope CurrentUser RemoteSigned');
  });
});

describe('a request as the scripts send it: answered without the program, as through it', () => {
  let fx: SandboxFixture;
  beforeAll(async () => {
    fx = await sandboxFixture();
  });
  afterAll(() => fx.close());

  it('the same lines as the hidden command gives when a global flag comes first (and the program runs)', async () => {
    const env = { ...fx.env, CRAWL_CONFIG_DIR: join(dir, 'config'), CRAWL_JOB_HISTORY: 'off' };
    const requests = [
      ['1', ':'],
      ['2', ':job', ':'],
      ['2', ':--profile', ':'],
      ['3', ':keys', ':revoke', ':'],
      ['4', ':job', ':pages', ':x', ':--output='],
      ['2', ':--profile'],
      ['--', 'keys', 'revoke', ''],
      ['--', 'job', 'pages', 'x', '--output', ''],
    ];
    for (const request of requests) {
      // --timeout 30 is the default: the flags are the same, only the way differs.
      const [direct, viaProgram] = await Promise.all([crawl(['__complete', ...request], { env }), crawl(['--timeout', '30', '__complete', ...request], { env })]);
      expect({ code: direct.code, stdout: direct.stdout, stderr: direct.stderr }, request.join(' ')).toEqual({ code: viaProgram.code, stdout: viaProgram.stdout, stderr: viaProgram.stderr });
    }
    // Not the same because both are empty: the key ids come from the service.
    const keys = await crawl(['__complete', '3', ':keys', ':revoke', ':'], { env });
    expect(keys.stdout).toMatch(/^key_\S+\t/m);
  });
});
