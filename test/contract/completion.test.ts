// Contract (spawned): shell completion in a real bash. The script `crawl completion bash` prints
// is sourced, COMP_WORDS and COMP_CWORD are set as bash sets them at a Tab, the completion function
// runs, and COMPREPLY is what bash would offer. The built crawl is first on PATH.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, tempDir } from '../helpers/cli.js';
import { startSilentTcp } from '../helpers/hostile-server.js';
import { sandboxFixture, type SandboxFixture } from '../helpers/sandbox.js';
import { crawl } from '../support/harness.js';

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
let script: string;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-completion-');
  mkdirSync(join(tmp.dir, 'bin'));
  writeFileSync(join(tmp.dir, 'bin', 'crawl'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(join(tmp.dir, 'bin', 'crawl'), 0o755);
  script = join(tmp.dir, 'crawl.bash');
  writeFileSync(script, (await crawl(['completion', 'bash'], { env: {} })).stdout);
  // A config file with two profiles.
  mkdirSync(join(tmp.dir, 'config'));
  writeFileSync(join(tmp.dir, 'config', 'config.json'), JSON.stringify({ profiles: { default: { 'base-url': fx.sandbox.url }, ci: {} } }), { mode: 0o600 });
  mkdirSync(join(tmp.dir, 'files'));
  for (const name of ['pages.ndjson', 'pages-old.ndjson', 'notes.txt']) writeFileSync(join(tmp.dir, 'files', name), '');
});
afterAll(async () => {
  tmp.cleanup();
  await fx.close();
});

/** What bash offers for `line` with the cursor at its end (a trailing space: a new, empty word). */
function tab(line: string, env: Record<string, string> = {}): Promise<{ offered: string[]; stderr: string }> {
  const words = line.split(' ');
  const program = `source '${script}'; source '${script}'
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_crawl_complete
printf '%s\\n' "\${COMPREPLY[@]}"`;
  // SHLVL as any shell has it: a bash started without it spends most of a second before it runs.
  const vars = cleanEnv({ CRAWL_CONFIG_DIR: join(tmp.dir, 'config'), CRAWL_API_KEY: fx.sandbox.key, XDG_STATE_HOME: join(tmp.dir, 'state'), ...env, SHLVL: '1', PATH: `${join(tmp.dir, 'bin')}:${process.env.PATH ?? ''}` });
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', program], { env: vars, cwd: join(tmp.dir, 'files'), timeout: 20_000 }, (error, stdout, stderr) => {
      if (error) reject(error);
      else resolve({ offered: stdout.split('\n').filter((l) => l !== ''), stderr });
    });
  });
}

describe('bash completion', () => {
  it.concurrent('commands, then subcommands, then flags (the global ones too); the hidden one never', async () => {
    const [top, partial, job, flags] = await Promise.all([tab('crawl '), tab('crawl jo'), tab('crawl job '), tab('crawl job watch --')]);
    expect(top.offered).toEqual(expect.arrayContaining(['job', 'keys', 'auth', 'config', 'api', 'sandbox', 'completion', 'help']));
    expect(top.offered.some((w) => w.startsWith('__'))).toBe(false);
    expect(partial.offered).toEqual(['job']);
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
      tab('crawl job pages demo --output pages'),
    ]);
    expect(shells.offered).toEqual(['bash', 'zsh', 'fish', 'powershell']);
    expect(profiles.offered).toEqual(['ci', 'default']);
    expect(topics.offered).toEqual(['exit-codes', 'environment']);
    expect(files.offered.sort()).toEqual(['pages-old.ndjson', 'pages.ndjson']);
  });

  it.concurrent('keys revoke: the ids and prefixes the service lists; a service that never answers: nothing, and no error', async () => {
    const key = fx.sandbox.addKey('completion-me');
    const listed = await tab('crawl keys revoke ', { CRAWL_BASE_URL: fx.sandbox.url });
    expect(listed.offered).toEqual(expect.arrayContaining([key.id, key.keyPrefix]));
    const silent = await startSilentTcp();
    try {
      const stuck = await tab('crawl keys revoke ', { CRAWL_BASE_URL: silent.url });
      expect(stuck).toEqual({ offered: [], stderr: '' });
    } finally {
      await silent.close();
    }
  });
});

describe('job ids from the history (XDG state folder)', () => {
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
    expect(status).toEqual({ offered: ['nightly-42', 'nightly-41'], stderr: '' });
    expect(bare.offered).toEqual(['status', 'watch', 'pages', 'cancel', 'nightly-42', 'nightly-41']);
    expect(off).toEqual({ offered: [], stderr: '' });
  });
});

describe('the other shells', () => {
  it.concurrent.each([
    ['zsh', /^#compdef crawl\n[\s\S]*compdef _crawl crawl\n$/],
    ['fish', /complete -c crawl -f -a '\(__crawl_complete\)'\n$/],
    ['powershell', /^# crawl completion for PowerShell[\s\S]*Register-ArgumentCompleter -Native -CommandName crawl/],
  ])('%s: the script asks crawl __complete and declares nothing readonly', async (shell, shape) => {
    const r = await crawl(['completion', shell], { env: {} });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(shape);
    expect(r.stdout).toContain('crawl __complete --');
    expect(r.stdout).not.toMatch(/readonly|typeset -r|declare -r/);
  });
});
