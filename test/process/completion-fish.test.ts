// Process: fish completion in a real fish (test/support/completion-shells.ts): the candidates from
// fish's own completion of a line (`complete -C`), and lines completed in an interactive fish.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionWorld, limiter, PROMPT, ptyTab, type CompletionWorld } from '../support/completion-shells.js';
import { needs } from '../support/tools.js';

let world: CompletionWorld;
let script: string;
let configHome: string;
let tabs = 0;
const atOnce = limiter(4);

beforeAll(async () => {
  world = completionWorld('crawl-fish-');
  script = await world.script('fish');
  // An interactive fish's start-up: the script sourced twice (a reloaded config), Ctrl-T saves the line.
  configHome = join(world.dir, 'config-home');
  mkdirSync(join(configHome, 'fish'), { recursive: true });
  writeFileSync(
    join(configHome, 'fish', 'config.fish'),
    [
      `function fish_prompt; printf '%s' '${PROMPT}'; end`,
      'function fish_greeting; end',
      `source '${script}'`,
      `source '${script}'`,
      "bind \\ct 'commandline >$TAB_OUT.line; echo; echo LINE-SAVED'",
      '',
    ].join('\n'),
  );
});
afterAll(() => world.cleanup());

/** The values fish offers for `line` (its own `complete -C`, the script loaded). */
function offered(line: string): Promise<string[]> {
  return atOnce(async () => {
    const { stdout, stderr } = await promisify(execFile)('fish', ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', script, line], {
      cwd: world.files,
      env: world.env(),
    });
    expect(stderr).toBe('');
    return stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split('\t')[0] ?? '');
  });
}

/** The line after typing `line` and a Tab in an interactive fish. */
async function tab(line: string): Promise<string> {
  const out = join(world.dir, `tab-${++tabs}`);
  const r = await atOnce(() => ptyTab('fish -i', line, { cwd: world.files, env: world.env({ XDG_CONFIG_HOME: configHome }), out }));
  expect(r.startup).not.toMatch(/error/i);
  return r.line.replace(/\n$/, '');
}

describe('fish completion', needs('fish', 'script'), () => {
  it.concurrent('commands, subcommands, flags and profiles; the hidden command never', async () => {
    const [top, job, flags, profiles, assigned] = await Promise.all([
      offered('crawl '),
      offered('crawl job '),
      offered('crawl job watch --'),
      offered('crawl --profile '),
      offered('crawl --profile=c'),
    ]);
    expect(top).toEqual(expect.arrayContaining(['job', 'keys', 'auth', 'config', 'api', 'sandbox', 'completion', 'help']));
    expect(top.some((w) => w.startsWith('__'))).toBe(false);
    expect(job).toEqual(['cancel', 'pages', 'status', 'watch']);
    expect(flags).toEqual(expect.arrayContaining(['--interval', '--max-wait', '--json', '--profile']));
    expect(profiles).toEqual(['ci', 'default']);
    expect(assigned).toEqual(['--profile=ci']);
  });

  it.concurrent('-X g: the method in capitals; --method=p: the methods that start with P', async () => {
    const [short, assigned] = await Promise.all([tab('crawl api api/keys -X g'), offered('crawl api api/keys --method=p')]);
    expect(short).toBe('crawl api api/keys -X GET ');
    expect(assigned.sort()).toEqual(['--method=PATCH', '--method=POST', '--method=PUT']);
  });

  it.concurrent('file names for --output, after --output= and after -F name=@', async () => {
    const [whole, assigned, field, folder] = await Promise.all([
      offered('crawl job pages demo --output pages'),
      offered('crawl job pages demo --output=di'),
      offered('crawl api api/keys -F body=@pages'),
      tab('crawl api api/keys --field=body=@di'),
    ]);
    expect(whole.sort()).toEqual(['pages-old.ndjson', 'pages.ndjson']);
    expect(assigned).toEqual(['--output=dist/']);
    expect(field.sort()).toEqual(['body=@pages-old.ndjson', 'body=@pages.ndjson']);
    expect(folder).toBe('crawl api api/keys --field=body=@dist/');
  });

  it.concurrent('commands on PATH for --to-command and the key-command / key-store-command settings', async () => {
    const partial = world.storeCommand.slice(0, -2);
    const [flag, assigned, setting, storeSetting] = await Promise.all([
      offered(`crawl keys rotate --to-command ${partial}`),
      tab(`crawl keys rotate --to-command=${partial}`),
      offered(`crawl config set key-command ${partial}`),
      tab(`crawl config set key-store-command ${partial}`),
    ]);
    expect(flag).toEqual([world.storeCommand]);
    expect(assigned).toBe(`crawl keys rotate --to-command=${world.storeCommand} `);
    expect(setting).toEqual([world.storeCommand]);
    expect(storeSetting).toBe(`crawl config set key-store-command ${world.storeCommand} `);
  });

  it.concurrent('the user\'s quotes and backslashes are not part of the words; words after the cursor are not asked about', async () => {
    const [quoted, open, escaped, before] = await Promise.all([
      offered("crawl 'job' \"st"),
      tab("crawl job pages demo --output 'my ex"),
      tab('crawl job pages demo --output my\\ ex'),
      // Ctrl-B four times: the cursor after `c`, before ` job`.
      tab('crawl --profile c job\x02\x02\x02\x02'),
    ]);
    expect(quoted).toEqual(['status']);
    expect(open).toBe("crawl job pages demo --output 'my exports/");
    expect(escaped).toBe('crawl job pages demo --output my\\ exports/');
    expect(before).toBe('crawl --profile ci job');
  });
});
