// Every `crawl …` command line of the pages in docs/ (and of the README's blocks beside its tour) runs
// against the sandbox, with the outcome the page shows: its exit status (0 unless the page shows
// a `crawl: ` error after it, or `; echo $?` and a number), and each line of output the page shows
// after it. The README's tour is run by test/process/readme.test.ts, and the blocks of docs/ci.md
// that are scripts of examples/ by test/process/ci-recipes*.test.ts.
//
// How a page runs:
// - Each fenced block is a session of its own: one real bash runs its lines in order, in a folder
//   of its own, against a sandbox of its own (the demo jobs, and the keys the pages name), with a
//   config file whose profiles (default, ci, staging) hold keys the sandbox accepts. `crawl` in that bash is a function that hands its
//   arguments, environment and standard input to this process, where the CLI runs through the
//   harness (memory streams, a fake clock): no process is started for crawl itself. A stream that
//   is the session's own counts as a terminal (120 columns, or the width the line's comment
//   names: "60 columns wide"), one that is redirected or piped does not. At a terminal's prompt
//   the reader answers y, or types the key (`auth login`). A relative path given to --output,
//   --output-file or --input is taken from the session's folder, as from a process started there.
// - In a block whose lines start with `$ `, those are the commands and the lines after each (but
//   comments) are what it shows; in a block without, each line that starts with `crawl ` is one.
// - What the page shows is compared line by line with what ran, in order (`...` skips lines),
//   after the same substitutions, with what changes from run to run masked: times, ages, keys
//   and key ids, numbers, runs of spaces.
// - What a page takes for granted is filled in by the fixed tables below, mechanically: the
//   variables its lines name ($JOB_ID ...), files they read (key.txt), commands this machine lacks
//   (gh, vault: stand-ins that keep what they get), the text of a line that cannot run as written
//   (LINES: another shell's syntax, a port that may be taken here) and what a block needs first
//   (BEFORE). Nothing is left out.
import { createServer, type Server, type Socket } from 'node:net';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { shellQuote } from '../../src/text/shell.js';
import { crawl, tempDir } from '../support/harness.js';
import { fencedBlocks } from '../support/markdown.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ROOT, spawnProcess } from '../support/spawn.js';
import { needs, type Tool } from '../support/tools.js';
import { standIns } from '../support/stand-ins.js';

const DOCS = join(ROOT, 'docs');
const EXAMPLES = join(ROOT, 'examples');

/** The doc's placeholders, as the session's variables. */
const VARIABLES: Readonly<Record<string, string>> = {
  JOB: 'demo-small',
  JOB_ID: 'demo-running',
  JOB_A: 'demo-small',
  JOB_B: 'demo-large',
  JOB_C: 'demo-running',
  EDITOR: 'true',
};

/**
 * Lines that cannot run here as written, and what runs instead: the same crawl command.
 * - Another shell's syntax (fish's `| source`, PowerShell's cmdlets, zsh's completion in bash):
 *   the script is printed, and the shells' own tests load it (test/process/completion-*.test.ts).
 * - A sandbox started on a fixed port, which another program may hold on this machine: a free one.
 * - A line whose context its comment or its output gives (the service out of reach).
 */
const LINES: Readonly<Record<string, string>> = {
  'crawl completion fish | source': 'crawl completion fish > /dev/null',
  'crawl completion powershell | Out-String | Invoke-Expression': 'crawl completion powershell > /dev/null',
  'eval "$(crawl completion zsh)"': 'crawl completion zsh > /dev/null',
  'crawl sandbox': 'crawl sandbox --port 0',
  'crawl sandbox --log': 'crawl sandbox --log --port 0',
  'CRAWL_SANDBOX_KEY=crk_TestKeyForMyScript0123456789 crawl sandbox --port 8799': 'CRAWL_SANDBOX_KEY=crk_TestKeyForMyScript0123456789 crawl sandbox --port 0',
  'crawl auth status; echo $?': 'CRAWL_BASE_URL=http://127.0.0.1:9 CRAWL_API_KEY="$CRAWL_KEY" crawl auth status; echo $?',
  // keys.md's examples run with CRAWL_API_KEY set (BEFORE); this one is about a key from the config file.
  'crawl keys rotate --yes': 'CRAWL_API_KEY= crawl keys rotate --yes',
  // The job group's examples all name "$JOB_ID", which the watch before this one saw finish.
  'crawl job cancel "$JOB_ID" --wait': '(JOB_ID=demo-pending; crawl job cancel "$JOB_ID" --wait)',
};

/** What a block needs before its first line (keyed by that line): bash lines, run unchecked. */
const BEFORE: Readonly<Record<string, readonly string[]>> = {
  // keys.md's examples: the key in use is CRAWL_API_KEY's (the list marks it), as in CI.
  'KEY=$(crawl keys create ci)': ['export CRAWL_API_KEY="$CRAWL_KEY"'],
  // The profiles the shown error lists, "ci" without a key.
  'crawl --profile cii keys list': ['printf \'{"profiles":{"default":{"base-url":"%s","api-key":"%s"},"ci":{"base-url":"%s"}}}\' "$SANDBOX_URL" "$CRAWL_KEY" "$SANDBOX_URL" > "$CRAWL_CONFIG_DIR/config.json"'],
};

/** Text of the pages that stands for this machine's (both in lines and in what they show). */
function substitutions(session: Session): Array<[string, string]> {
  return [
    ['https://crawl.example.com', session.sandboxUrl],
    ['/home/me/.config/crawl', session.configDir],
    // Keys the pages name by id or prefix.
    ['key_0123456789ab', session.fixtures.byId],
  ];
}

interface Step {
  /** The command line as the page has it (continued lines joined). */
  command: string;
  /** What the page shows after it. */
  shown: string[];
  /** Its line in the page. */
  line: number;
}

interface Block {
  page: string;
  line: number;
  steps: Step[];
}

const CRAWL_LINE = /(^|[\s|;&(]|\$\()crawl\s/;

/** The blocks of a page that hold crawl command lines, each with its steps. */
function blocksOf(page: string): Block[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const scripts = readdirSync(EXAMPLES).filter((f) => /\.(sh|ps1)$/.test(f)).map((f) => readFileSync(join(EXAMPLES, f), 'utf8'));
  const blocks: Block[] = [];
  for (const block of fencedBlocks(text)) {
    // A script of examples/, run as it is by the recipes' own tests; the README's tour, run by its own.
    if (scripts.includes(block.lines.join('\n') + '\n')) continue;
    if (page === 'README.md' && block.lang === 'console') continue;
    const prompted = block.lines.some((line) => /^\s*\$ /.test(line));
    const steps: Step[] = [];
    for (let i = 0; i < block.lines.length; i++) {
      const line = block.lines[i] ?? '';
      const prompt = /^\s*\$ (.*)$/.exec(line);
      let command = prompted ? prompt?.[1] : /^crawl /.test(line) ? line : undefined;
      if (command === undefined) {
        const shown = line.trim();
        if (prompted && shown !== '' && !shown.startsWith('#')) steps.at(-1)?.shown.push(line);
        continue;
      }
      const at = block.line + i;
      while (command.endsWith(' \\')) command = `${command.slice(0, -2)} ${(block.lines[++i] ?? '').trim()}`;
      steps.push({ command, shown: [], line: at });
    }
    const crawlSteps = steps.filter((s) => CRAWL_LINE.test(s.command));
    if (crawlSteps.length > 0) blocks.push({ page, line: block.line, steps });
  }
  return blocks;
}

/** The command without its trailing comment (outside quotes), and that comment. */
function splitComment(command: string): { code: string; comment: string } {
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(command[i - 1] ?? ''))) {
      return { code: command.slice(0, i).trimEnd(), comment: command.slice(i + 1).trim() };
    }
  }
  return { code: command, comment: '' };
}

// ---------------------------------------------------------------------------------------------
// The session: a bash whose `crawl` runs here.

interface Session {
  /** The block's own sandbox, with the demo jobs. */
  sandbox: Sandbox;
  dir: string;
  configDir: string;
  sandboxUrl: string;
  /** Keys made for the page's lines: one named by id, and $OLD_KEY_ID's. */
  fixtures: { byId: string; oldKeyId: string };
}

/** The function that stands for crawl in the session's bash: one request to this process a call. */
const PRELUDE = String.raw`exec 2>&1
exec {CRAWL_RPC_OUT}>&1 {CRAWL_RPC_IN}<&0
CRAWL_RPC_N=0
crawl() {
  local me=$BASHPID f code fd
  CRAWL_RPC_N=$((CRAWL_RPC_N + 1))
  f="$CRAWL_RPC/$me.$CRAWL_RPC_N"
  printf '%s\0' "$@" > "$f.args"
  declare -px > "$f.env"
  printf '%s' "$PWD" > "$f.cwd"
  # A stream that is still the session's own is a terminal (-ef: the same file, no process started).
  if [ /proc/$me/fd/0 -ef /proc/$me/fd/$CRAWL_RPC_IN ]; then : > "$f.tty0"; else cat > "$f.stdin"; fi
  if [ /proc/$me/fd/1 -ef /proc/$me/fd/$CRAWL_RPC_OUT ]; then : > "$f.tty1"; fi
  if [ /proc/$me/fd/2 -ef /proc/$me/fd/$CRAWL_RPC_OUT ]; then : > "$f.tty2"; fi
  exec {fd}<>"/dev/tcp/127.0.0.1/$CRAWL_RPC_PORT"
  printf '%s\n' "$f" >&"$fd"
  code=1
  read -r code <&"$fd"
  exec {fd}>&-
  # What it printed, read and written by bash itself: no process for each call.
  local out err
  IFS= read -r -d '' out < "$f.out"
  IFS= read -r -d '' err < "$f.err"
  printf '%s' "$out"
  printf '%s' "$err" >&2
  return "$code"
}
`;

const exists = (path: string): boolean => {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
};

/**
 * The environment of a crawl call, from bash's `declare -px` (a builtin: no process started):
 * `declare -x NAME="value"` with \\ \" \$ \` escaped, or `NAME=$'value'` (C escapes) when the
 * value holds control characters; `declare -x NAME` for one exported but never set.
 */
function exportedVariables(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  const C: Record<string, string> = { n: '\n', t: '\t', r: '\r', e: '\x1b', a: '\x07', b: '\b', f: '\f', v: '\v' };
  for (const m of text.matchAll(/^declare -x ([A-Za-z_]\w*)(?:="((?:[^"\\]|\\.)*)"|=\$'((?:[^'\\]|\\.)*)')?$/gms)) {
    const [, name = '', quoted, ansi] = m;
    if (quoted !== undefined) env[name] = quoted.replace(/\\(.)/gs, '$1');
    else if (ansi !== undefined) {
      env[name] = ansi.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/gs, (_, e: string) =>
        e.startsWith('x') ? String.fromCharCode(parseInt(e.slice(1), 16)) : /^[0-7]/.test(e) ? String.fromCharCode(parseInt(e, 8)) : (C[e] ?? e),
      );
    }
  }
  return env;
}

/** Flags whose value is a file: a relative one is taken from the session's folder. */
const FILE_FLAGS = new Set(['--output', '--output-file', '--input']);

/** Runs one `crawl` call of a session in this process, as the files under `f` describe it. */
async function runCall(f: string): Promise<number> {
  const argv = readFileSync(`${f}.args`, 'utf8').split('\0').slice(0, -1);
  const env = exportedVariables(readFileSync(`${f}.env`, 'utf8'));
  const cwd = readFileSync(`${f}.cwd`, 'utf8');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const next = argv[i + 1];
    if (FILE_FLAGS.has(arg) && next !== undefined && next !== '-' && !isAbsolute(next)) argv[i + 1] = resolve(cwd, next);
    const eq = /^(--[\w-]+)=(.+)$/.exec(arg);
    if (eq && FILE_FLAGS.has(eq[1] ?? '') && eq[2] !== '-' && !isAbsolute(eq[2] ?? '')) argv[i] = `${eq[1]}=${resolve(cwd, eq[2] ?? '')}`;
  }
  const tty = { stdin: exists(`${f}.tty0`), stdout: exists(`${f}.tty1`), stderr: exists(`${f}.tty2`) };
  const columns = Number(/(\d+) columns wide/.exec(env.CRAWL_DOC_COMMENT ?? '')?.[1] ?? 120);
  // At a terminal's prompt: the key for `auth login`, y for a confirmation.
  const login = argv.includes('login') && argv.includes('auth') && !argv.includes('--with-key');
  const input = tty.stdin ? (login ? `${env.CRAWL_KEY ?? ''}\n` : 'y\n') : readFileSync(`${f}.stdin`, 'utf8');
  // A sandbox started here runs until Ctrl-C: pressed once it is listening.
  const serves = argv.includes('sandbox') && !argv.includes('--reset');
  const stop = new AbortController();
  let poll: NodeJS.Timeout | undefined;
  for (const name of Object.keys(env)) if (name.startsWith('CRAWL_RPC') || name === 'CRAWL_DOC_COMMENT') delete env[name];
  const r = await crawl(argv, {
    env,
    tty,
    input,
    columns,
    signal: stop.signal,
    onStreams: (streams) => {
      if (serves) poll = setInterval(() => streams.outputText().includes('Sandbox listening on') && stop.abort(new InterruptedError(130)), 5);
    },
  });
  clearInterval(poll);
  const both = tty.stdout && tty.stderr;
  writeFileSync(`${f}.out`, both ? r.output : r.stdout);
  writeFileSync(`${f}.err`, both ? '' : r.stderr);
  return r.code;
}

let server: Server;
let port: number;
let tmp: { dir: string; cleanup: () => void };
let bin: string;
beforeAll(async () => {
  tmp = tempDir('crawl-doc-lines-');
  const made = standIns(tmp.dir);
  bin = made.bin;
  // Commands the pages name that this machine lacks: each keeps what it gets, and succeeds.
  for (const name of ['gh', 'glab', 'other-tool']) made.tool(name, `cat > "$HOME/${name}.stdin"`);
  // vault kv get prints the key the session uses; vault kv put keeps what it gets.
  made.tool('vault', 'if [ "$2" = get ]; then printf \'%s\\n\' "$CRAWL_KEY"; else cat > "$HOME/vault.stdin"; fi');
  server = createServer((socket: Socket) => {
    let request = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      request += chunk;
      if (!request.includes('\n')) return;
      runCall(request.trim()).then(
        (code) => socket.end(`${code}\n`),
        (error: unknown) => {
          writeFileSync(`${request.trim()}.err`, `test harness: ${String(error)}\n`);
          writeFileSync(`${request.trim()}.out`, '');
          socket.end('99\n');
        },
      );
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((closed) => server.close(closed));
  tmp.cleanup();
});

let sessions = 0;
/** A fresh session: a sandbox of its own, fixture keys, a folder with a config and the files pages read. */
async function newSession(): Promise<Session> {
  const sandbox = await startSandbox();
  const dir = join(tmp.dir, `s${++sessions}`);
  const configDir = join(dir, 'config');
  mkdirSync(join(dir, 'home'), { recursive: true });
  mkdirSync(join(dir, 'rpc'));
  mkdirSync(configDir, { mode: 0o700 });
  const key = sandbox.key;
  const profile = (name: string) => ({ 'base-url': sandbox.url, 'api-key': sandbox.addKey(`profile ${name}`).key });
  writeFileSync(join(configDir, 'config.json'), JSON.stringify({ profiles: { default: { 'base-url': sandbox.url, 'api-key': key }, ci: profile('ci'), staging: profile('staging') } }), { mode: 0o600 });
  // Keys the pages name: by id (substituted), by prefix, by name.
  const byId = sandbox.addKey('example by id').id;
  sandbox.addKey('example by prefix', { keyPrefix: 'crk_AbCdEfGh' });
  sandbox.addKey('old-laptop');
  sandbox.addKey('deploy to production (eu-west-1 and us-east-2)', { keyPrefix: 'crk_95W7FGHr' });
  const oldKeyId = sandbox.addKey('an old key').id;
  // Files the pages read, and a deploy step that succeeds.
  writeFileSync(join(dir, 'key.txt'), `${key}\n`);
  writeFileSync(join(dir, 'staging-key.txt'), `${key}\n`);
  writeFileSync(join(dir, 'deploy.sh'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(dir, 'deploy.sh'), 0o755);
  return { sandbox, dir, configDir, sandboxUrl: sandbox.url, fixtures: { byId, oldKeyId } };
}

interface Ran {
  code: number;
  output: string;
}

/** Runs a block's steps in one bash; what each printed (both streams, in order) and its status. */
async function runBlock(block: Block, session: Session): Promise<Ran[]> {
  const subs = substitutions(session);
  const lines = [PRELUDE, `cd '${session.dir}'`];
  for (const setup of BEFORE[splitComment(block.steps[0]?.command ?? '').code] ?? []) lines.push(setup);
  for (const [i, step] of block.steps.entries()) {
    const { code, comment } = splitComment(step.command);
    let runnable = LINES[code] ?? code;
    for (const [from, to] of subs) runnable = runnable.replaceAll(from, to);
    lines.push(`printf '\\n@@step ${i}\\n'`, `export CRAWL_DOC_COMMENT=${shellQuote(comment)}`, runnable, `printf '\\n@@rc ${i} %s\\n' "$?"`);
  }
  const script = join(session.dir, 'session.sh');
  writeFileSync(script, lines.join('\n') + '\n');
  const r = await spawnProcess('bash', [script], {
    cwd: session.dir,
    stdin: 'ignore',
    timeoutMs: 110_000,
    env: {
      ...VARIABLES,
      PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: join(session.dir, 'home'),
      LANG: 'C.UTF-8',
      NO_COLOR: '1',
      CRAWL_CONFIG_DIR: session.configDir,
      XDG_STATE_HOME: join(session.dir, 'state'),
      XDG_CACHE_HOME: join(session.dir, 'cache'),
      DBUS_SESSION_BUS_ADDRESS: undefined,
      XDG_RUNTIME_DIR: undefined,
      CRAWL_KEY: session.sandbox.key,
      OLD_KEY_ID: session.fixtures.oldKeyId,
      SANDBOX_URL: session.sandbox.url,
      CRAWL_RPC: join(session.dir, 'rpc'),
      CRAWL_RPC_PORT: String(port),
    },
  });
  expect(r.timedOut, `${block.page}:${block.line} did not finish`).toBe(false);
  return block.steps.map((_, i) => {
    const start = r.stdout.indexOf(`\n@@step ${i}\n`);
    const end = r.stdout.indexOf(`\n@@rc ${i} `, start);
    expect(start >= 0 && end >= 0, `${block.page}:${block.line}: step ${i} did not run:\n${r.stdout}`).toBe(true);
    const code = Number(/^\n@@rc \d+ (\d+)/.exec(r.stdout.slice(end))?.[1]);
    return { code, output: r.stdout.slice(start + `\n@@step ${i}\n`.length, end) };
  });
}

/** A line as compared: what changes from run to run masked, spaces collapsed. */
function normal(line: string): string {
  return line
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:[\d.]+Z/g, '<time>')
    .replace(/\b(just now|in less than a minute|(in )?\d+ (second|minute|hour|day|week|month|year)s?( ago)?)/g, '<when>')
    .replace(/crk_[A-Za-z0-9]+(…\*+)?/g, '<key>')
    .replace(/key_[0-9a-f]+/g, '<id>')
    .replace(/\d+/g, '0')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Checks one step's outcome against what the page shows; returns what did not hold. */
function mismatch(step: Step, ran: Ran, session: Session): string | undefined {
  const subs = substitutions(session);
  const shown = step.shown.map((line) => subs.reduce((text, [from, to]) => text.replaceAll(from, to), line));
  const actual = ran.output.split('\n');
  const echoes = / echo \$\?$/.test(splitComment(step.command).code);
  if (echoes) {
    const code = shown.at(-1);
    if (ran.code !== 0 || actual.filter((l) => l !== '').at(-1) !== code) return `exit status ${actual.filter((l) => l !== '').at(-1) ?? '?'}, the page shows ${code ?? 'none'}`;
  } else {
    const fails = shown.some((line) => line.startsWith('crawl: '));
    if (fails ? ran.code === 0 : ran.code !== 0) return `exit status ${ran.code}, the page shows ${fails ? 'a failure' : 'success'}`;
  }
  // Each line shown, in order, among the lines printed.
  let at = 0;
  for (const line of echoes ? shown.slice(0, -1) : shown) {
    if (line.trim() === '...') continue;
    const want = normal(line);
    while (at < actual.length && normal(actual[at] ?? '') !== want) at++;
    if (at === actual.length) return `the page shows "${line}", not printed (in this order)`;
    at++;
  }
  return undefined;
}

/** The tools a block's lines run besides crawl and bash (a line that pipes into jq needs jq). */
function toolsOf(block: (typeof blocks)[number]): Tool[] {
  return block.steps.some((step) => /(^|\|\s*)jq\b/.test(step.command)) ? ['jq'] : [];
}

const pages = ['README.md', ...readdirSync(DOCS).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const blocks = pages.flatMap(blocksOf);

describe('the command lines of docs/*.md', needs('bash'), () => {
  it('every line the tables name is a line of a page (none is left over from an older page)', () => {
    const lines = new Set(blocks.flatMap((b) => b.steps.map((s) => splitComment(s.command).code)));
    for (const line of [...Object.keys(LINES), ...Object.keys(BEFORE)]) expect(lines.has(line), line).toBe(true);
  });

  it('are found in the pages that have them, the command reference\'s examples too', () => {
    const count = (page: string): number => blocks.filter((b) => b.page === page).flatMap((b) => b.steps).length;
    for (const page of ['README.md', 'docs/commands.md', 'docs/jobs.md', 'docs/keys.md', 'docs/settings.md', 'docs/api.md', 'docs/jq.md', 'docs/hints.md']) expect(count(page), page).toBeGreaterThan(0);
    expect(blocks.flatMap((b) => b.steps).length).toBeGreaterThan(100);
  });

  // Each block in a session and a sandbox of its own. One after another: side by side they only
  // contend for the same cores. The bound is a hang guard (a block of many lines on a loaded machine).
  for (const block of blocks) {
    it(`${block.page}:${block.line}: each line runs with the outcome the page shows`, { ...needs(...toolsOf(block)), timeout: 120_000 }, async () => {
      const session = await newSession();
      let ran: Ran[];
      try {
        ran = await runBlock(block, session);
      } finally {
        await session.sandbox.close();
      }
      const problems = block.steps.flatMap((step, i) => {
        const problem = mismatch(step, ran[i] ?? { code: -1, output: '' }, session);
        return problem === undefined ? [] : [`${block.page}:${step.line}: \`${step.command}\`: ${problem}\n${ran[i]?.output ?? ''}`];
    });
    expect(problems).toEqual([]);
    });
  }
});
