// Contract (spawned): shell completion in a real bash, as a user meets it. An interactive bash runs
// in a pseudo-terminal (util-linux `script`) with the script `crawl completion bash` prints; the
// line is typed with a Tab at its end, so bash itself splits the words (at the = and : of
// COMP_WORDBREAKS too), runs the completion function and lets readline apply what it offered (a
// slash after a folder, a space after a value, quoting). The test keeps what the function left in
// COMPREPLY and the line as it then stands. The built crawl is first on PATH.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from '../support/spawn.js';
import { startSilentTcp } from '../support/hostile-server.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { crawl, tempDir } from '../support/harness.js';
import { needs } from '../support/tools.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
let rcfile: string;
let tabs = 0;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-completion-');
  mkdirSync(join(tmp.dir, 'bin'));
  writeFileSync(join(tmp.dir, 'bin', 'crawl'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(join(tmp.dir, 'bin', 'crawl'), 0o755);
  const script = join(tmp.dir, 'crawl.bash');
  writeFileSync(script, (await crawl(['completion', 'bash'], { env: {} })).stdout);
  // The shell's start-up: the script sourced twice (a reloaded rc file), its function wrapped to
  // keep COMPREPLY and stderr, and Ctrl-T to save the line. No inputrc, no system bashrc.
  rcfile = join(tmp.dir, 'bashrc');
  writeFileSync(
    rcfile,
    `PS1='READY$ '
source '${script}'; source '${script}'
f=$(declare -f _crawl_complete); eval "_crawl_under_test\${f#_crawl_complete}"
_crawl_complete() { _crawl_under_test 2>>"$TAB_OUT.err"; local s=$?; printf '%s\\n' "\${COMPREPLY[@]}" >"$TAB_OUT.offered"; return $s; }
bind -x '"\\C-t": printf "%s" "$READLINE_LINE" >"$TAB_OUT.line"; printf "\\nLINE-SAVED\\n"'
`,
  );
  writeFileSync(join(tmp.dir, 'inputrc'), '');
  // A config file with two profiles.
  mkdirSync(join(tmp.dir, 'config'));
  writeFileSync(join(tmp.dir, 'config', 'config.json'), JSON.stringify({ profiles: { default: { 'base-url': fx.sandbox.url }, ci: {} } }), { mode: 0o600 });
  mkdirSync(join(tmp.dir, 'files'));
  for (const name of ['pages.ndjson', 'pages-old.ndjson', 'notes.txt']) writeFileSync(join(tmp.dir, 'files', name), '');
  for (const folder of ['dist', 'my exports']) {
    mkdirSync(join(tmp.dir, 'files', folder));
    writeFileSync(join(tmp.dir, 'files', folder, 'site.ndjson'), '');
  }
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

interface Tab {
  /** What the completion function put in COMPREPLY. */
  offered: string[];
  /** The line after bash applied it (readline's own file names when the script asked for them). */
  line: string;
  /** What the completion function wrote to stderr. */
  stderr: string;
}

/**
 * Shells at once, across the concurrent tests: each runs bash and a crawl process, and two loaded
 * cores would otherwise start a score of them together, each against its 20 s limit.
 */
const AT_ONCE = 4;
let running = 0;
const waiting: Array<() => void> = [];

/** Types `line` and a Tab into an interactive bash (a trailing space: a new, empty word). */
async function tab(line: string, env: Record<string, string> = {}): Promise<Tab> {
  // A shell that ends hands its place to the next one waiting.
  if (running < AT_ONCE) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await tabNow(line, env);
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function tabNow(line: string, env: Record<string, string>): Promise<Tab> {
  const out = join(tmp.dir, `tab-${++tabs}`);
  writeFileSync(`${out}.err`, '');
  // SHLVL as any shell has it: a bash started without it spends most of a second before it runs.
  const vars = cleanEnv({
    CRAWL_CONFIG_DIR: join(tmp.dir, 'config'),
    CRAWL_API_KEY: fx.sandbox.key,
    XDG_STATE_HOME: join(tmp.dir, 'state'),
    ...env,
    TAB_OUT: out,
    INPUTRC: join(tmp.dir, 'inputrc'),
    TERM: 'dumb',
    SHLVL: '1',
    PATH: `${join(tmp.dir, 'bin')}:${process.env.PATH ?? ''}`,
  });
  return new Promise((resolve, reject) => {
    const shell = spawn('script', ['-qefc', `bash --noprofile --rcfile '${rcfile}' -i`, '/dev/null'], { env: vars, cwd: join(tmp.dir, 'files'), timeout: 20_000 });
    let screen = '';
    let step: 'starting' | 'typed' | 'leaving' = 'starting';
    shell.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString();
      if (step === 'starting' && screen.includes('READY$ ')) {
        step = 'typed';
        shell.stdin.write(`${line}\t\x14`);
      } else if (step === 'typed' && screen.includes('LINE-SAVED')) {
        step = 'leaving';
        shell.stdin.write('\x15exit\r');
      }
    });
    shell.on('error', reject);
    shell.on('close', (code, signal) => {
      if (step !== 'leaving' || code !== 0) {
        reject(new Error(`bash ended (${code ?? signal}) before the line was saved:\n${screen}`));
        return;
      }
      const offered = readFileSync(`${out}.offered`, 'utf8').split('\n').filter((l) => l !== '');
      resolve({ offered, line: readFileSync(`${out}.line`, 'utf8'), stderr: readFileSync(`${out}.err`, 'utf8') });
    });
  });
}

describe('bash completion', needs('bash', 'script'), () => {
  it.concurrent('commands, then subcommands, then flags (the global ones too); the hidden one never', async () => {
    const [top, partial, job, flags] = await Promise.all([tab('crawl '), tab('crawl jo'), tab('crawl job '), tab('crawl job watch --')]);
    expect(top.offered).toEqual(expect.arrayContaining(['job', 'keys', 'auth', 'config', 'api', 'sandbox', 'completion', 'help']));
    expect(top.offered.some((w) => w.startsWith('__'))).toBe(false);
    expect(partial.offered).toEqual(['job']);
    expect(partial.line).toBe('crawl job ');
    expect(job.offered).toEqual(['status', 'watch', 'pages', 'cancel']);
    expect(flags.offered).toEqual(expect.arrayContaining(['--interval', '--max-wait', '--json', '--profile', '--timeout']));
    expect(flags.offered).not.toContain('--yes');
    for (const r of [top, partial, job, flags]) expect(r.stderr).toBe('');
  });

  it.concurrent('fixed values, profiles from the config, help topics, file names for --output', async () => {
    const [shells, profiles, topics, files] = await Promise.all([
      tab('crawl completion '),
      tab('crawl --profile '),
      tab('crawl help e'),
      tab('crawl job pages demo --output pages-'),
    ]);
    expect(shells.offered).toEqual(['bash', 'zsh', 'fish', 'powershell']);
    expect(profiles.offered).toEqual(['ci', 'default']);
    expect(topics.offered).toEqual(['exit-codes', 'environment']);
    expect(files.line).toBe('crawl job pages demo --output pages-old.ndjson ');
  });

  it.concurrent('--flag=value: the flag\'s values, not commands; a flag given that way earlier does not stop the walk', async () => {
    const [one, all, later, files] = await Promise.all([
      tab('crawl --profile=c'),
      tab('crawl --profile='),
      tab('crawl --profile=ci job w'),
      tab('crawl job pages demo --output=pages-'),
    ]);
    expect(one).toEqual({ offered: ['ci'], line: 'crawl --profile=ci ', stderr: '' });
    expect(all.offered).toEqual(['ci', 'default']);
    expect(later.line).toBe('crawl --profile=ci job watch ');
    expect(files.line).toBe('crawl job pages demo --output=pages-old.ndjson ');
  });

  it.concurrent('file names as bash\'s own: a folder gets a slash and no space, a name with a space is quoted, also after --output=', async () => {
    const [folder, inside, spaced, assigned] = await Promise.all([
      tab('crawl job pages demo --output di'),
      tab('crawl job pages demo --output dist/'),
      tab('crawl job pages demo --output my'),
      tab('crawl job pages demo --output=di'),
    ]);
    expect(folder.line).toBe('crawl job pages demo --output dist/');
    expect(inside.line).toBe('crawl job pages demo --output dist/site.ndjson ');
    expect(spaced.line).toBe('crawl job pages demo --output my\\ exports/');
    expect(assigned.line).toBe('crawl job pages demo --output=dist/');
    for (const r of [folder, inside, spaced, assigned]) expect(r.stderr).toBe('');
  });

  it.concurrent('the HTTP methods of api -X and --method; the settings of config get, set and unset', async () => {
    const [short, long, assigned, get, set, unset] = await Promise.all([
      tab('crawl api api/keys -X '),
      tab('crawl api api/keys --method D'),
      tab('crawl api api/keys --method=P'),
      tab('crawl config get '),
      tab('crawl config set '),
      tab('crawl config unset a'),
    ]);
    expect(short.offered).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
    expect(long.line).toBe('crawl api api/keys --method DELETE ');
    expect(assigned.offered).toEqual(['POST', 'PUT', 'PATCH']);
    expect(get.offered).toEqual(['base-url', 'api-key', 'key-store', 'keyring-service', 'keyring-account', 'key-command', 'key-store-command']);
    // What config set refuses (the key, and what crawl records where it stores the key): not offered.
    expect(set.offered).toEqual(['base-url', 'key-command', 'key-store-command']);
    expect(unset.line).toBe('crawl config unset api-key ');
  });

  it.concurrent('keys revoke: the ids and prefixes the service lists; a service that never answers: nothing, and no error', async () => {
    const key = fx.sandbox.addKey('completion-me');
    const listed = await tab('crawl keys revoke ', { CRAWL_BASE_URL: fx.sandbox.url });
    expect(listed.offered).toEqual(expect.arrayContaining([key.id, key.keyPrefix]));
    const silent = await startSilentTcp();
    try {
      const stuck = await tab('crawl keys revoke ', { CRAWL_BASE_URL: silent.url });
      expect(stuck).toMatchObject({ offered: [], stderr: '' });
    } finally {
      await silent.close();
    }
  });
});

describe('job ids from the history (XDG state folder)', needs('bash', 'script'), () => {
  it.concurrent('the ids looked at lately on this service, the latest first; none with CRAWL_JOB_HISTORY=off', async () => {
    fx.sandbox.addJob({ id: 'nightly-41', status: 'completed', pagesTotal: 1 });
    fx.sandbox.addJob({ id: 'nightly-42', status: 'completed', pagesTotal: 1 });
    const env = { XDG_STATE_HOME: join(tmp.dir, 'history-state'), CRAWL_BASE_URL: fx.sandbox.url };
    for (const id of ['nightly-41', 'nightly-42']) expect((await crawl(['job', id], { env: { ...fx.env, ...env } })).code).toBe(0);
    const [status, bare, off] = await Promise.all([
      tab('crawl job status nightly', env),
      tab('crawl job ', env),
      tab('crawl job status nightly', { ...env, CRAWL_JOB_HISTORY: 'off' }),
    ]);
    expect(status).toMatchObject({ offered: ['nightly-42', 'nightly-41'], stderr: '' });
    expect(bare.offered).toEqual(['status', 'watch', 'pages', 'cancel', 'nightly-42', 'nightly-41']);
    expect(off).toMatchObject({ offered: [], stderr: '' });
  });

  it.concurrent('an id with a colon (a word bash splits at the :) completes whole', async () => {
    fx.sandbox.addJob({ id: 'sitemap:2024', status: 'completed', pagesTotal: 1 });
    const env = { XDG_STATE_HOME: join(tmp.dir, 'colon-state'), CRAWL_BASE_URL: fx.sandbox.url };
    expect((await crawl(['job', 'sitemap:2024'], { env: { ...fx.env, ...env } })).code).toBe(0);
    const [part, atColon] = await Promise.all([tab('crawl job status sitemap:2', env), tab('crawl job status sitemap:', env)]);
    expect(part).toEqual({ offered: ['2024'], line: 'crawl job status sitemap:2024 ', stderr: '' });
    expect(atColon.line).toBe('crawl job status sitemap:2024 ');
  });
});

describe('the other shells', () => {
  // Read as text here; zsh and fish also run for real in test/process/completion-zsh.test.ts and
  // completion-fish.test.ts. --flag=value reaches each as one word; each completes file names after
  // the part crawl names (--output=, name=@) itself (zsh: compset, fish: the token's tail,
  // PowerShell: CompleteFilename), since the shell's own file names would start at --flag.
  it.concurrent.each([
    ['zsh', /^#compdef crawl\n[\s\S]*compdef _crawl crawl\n/, /compset -P "\$\{\(b\)own\}"[\s\S]*_files/, /crawl __complete \$\{#asked\} /],
    ['fish', /complete -c crawl -f -a '\(__crawl_complete\)'\n$/, /__fish_complete_path "\$rest"/, /crawl __complete \(count \$words\) ":"\$words /],
    ['powershell', /^# crawl completion for PowerShell[\s\S]*Register-ArgumentCompleter -Native -CommandName crawl/, /CompleteFilename\(\$rest\)/, /& crawl __complete \$words\.Count @asked /],
  ])('%s: the script asks crawl __complete (the words counted, each behind a colon), completes files after --flag=, and declares nothing readonly', async (shell, shape, afterFlag, asks) => {
    const r = await crawl(['completion', shell], { env: {} });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(shape);
    expect(r.stdout).toMatch(afterFlag);
    expect(r.stdout).toMatch(asks);
    expect(r.stdout).not.toMatch(/readonly|typeset -r|declare -r/);
  });
});
