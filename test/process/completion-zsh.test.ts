// Process: zsh completion in a real interactive zsh (test/support/completion-shells.ts), with
// compinit run before the script (as the docs say), not at all (macOS's default), and after it;
// and the script as a file named _crawl on $fpath, which compinit loads at the first Tab.
//
// compinit keeps a dump of zsh's completion functions, as it does for users (~/.zcompdump): without
// one (`compinit -D`) every shell read each of them again, ten times the CPU of a start from the
// dump, and on a loaded machine the later tabs ran past their test's time. The dump is made once,
// before the tests; only the _crawl-on-$fpath case reads the functions afresh (-D), as a shell
// does the first time it finds a new one. The tests run one after another, so a test's time is its
// own tabs' (four shells at once), not a queue behind the other tests'.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionWorld, limiter, PROMPT, ptyTab, type CompletionWorld, type PtyTab } from '../support/completion-shells.js';
import { needs, requireTools } from '../support/tools.js';

type Rc = 'compinit-first' | 'no-compinit' | 'compinit-after' | 'fpath';

let world: CompletionWorld;
const zdotdirs = new Map<Rc, string>();
let tabs = 0;
const atOnce = limiter(4);

beforeAll(async () => {
  world = completionWorld('crawl-zsh-');
  const script = await world.script('zsh');
  const load = `eval "$(crawl completion zsh)"`;
  const dump = join(world.dir, 'zcompdump');
  const compinit = `autoload -Uz compinit && compinit -d '${dump}'`;
  const functions = join(world.dir, 'zsh-functions');
  mkdirSync(functions);
  copyFileSync(script, join(functions, '_crawl'));
  const rcs: Record<Rc, string[]> = {
    'compinit-first': [compinit, `source '${script}'`, `source '${script}'`],
    'no-compinit': [load],
    'compinit-after': [load, compinit],
    fpath: [`fpath=('${functions}' $fpath)`, 'autoload -Uz compinit && compinit -D'],
  };
  for (const [rc, lines] of Object.entries(rcs) as Array<[Rc, string[]]>) {
    const dir = join(world.dir, `zdotdir-${rc}`);
    mkdirSync(dir);
    writeFileSync(
      join(dir, '.zshrc'),
      [
        `PS1='${PROMPT}'`,
        ...lines,
        'print -r -- "CRAWL-FUNCTION:$+functions[_crawl]"',
        '_save_line() { print -rn -- "$BUFFER" >"$TAB_OUT.line"; print "\\nLINE-SAVED" }',
        'zle -N _save_line',
        "bindkey '^T' _save_line",
        '',
      ].join('\n'),
    );
    zdotdirs.set(rc, dir);
  }
  // zsh -f: no rc file; only the dump is made.
  requireTools('zsh');
  await promisify(execFile)('zsh', ['-f', '-c', `autoload -Uz compinit && compinit -d '${dump}'`], { env: world.env() });
  // The bound: a full read of zsh's functions, on what may be a loaded machine.
}, 60_000);
afterAll(() => world.cleanup());

/** Types `line` and a Tab into an interactive zsh whose ~/.zshrc is `rc`. */
function tab(line: string, rc: Rc = 'compinit-first'): Promise<PtyTab> {
  const zdotdir = zdotdirs.get(rc) ?? '';
  const out = join(world.dir, `tab-${++tabs}`);
  return atOnce(() => ptyTab('zsh -i', line, { cwd: world.files, env: world.env({ ZDOTDIR: zdotdir }), out }));
}

/** The candidates zsh listed under the line (`name  -- description`, or names in columns). */
function listed(r: PtyTab): string[] {
  const afterTab = r.screen.split(PROMPT)[1] ?? '';
  return afterTab
    .split(/\r?\n/)
    .slice(1)
    .flatMap((row) => (row.includes(' -- ') ? [row.slice(0, row.indexOf(' -- '))] : [row]))
    .flatMap((row) => row.trim().split(/\s+/))
    .filter((word) => word !== '');
}

describe('zsh completion (compinit first, the script sourced twice)', needs('zsh', 'script'), () => {
  it('commands, subcommands and profiles; the hidden command never', async () => {
    const [partial, job, top, profiles] = await Promise.all([tab('crawl jo'), tab('crawl job '), tab('crawl '), tab('crawl --profile ')]);
    expect(partial.line).toBe('crawl job ');
    expect(listed(job)).toEqual(['cancel', 'pages', 'status', 'watch']);
    expect(listed(top)).toEqual(expect.arrayContaining(['job', 'keys', 'auth', 'config', 'api', 'completion']));
    expect(top.screen).not.toContain('__complete');
    expect(listed(profiles).sort()).toEqual(['ci', 'default']);
    for (const r of [partial, job, top, profiles]) expect(r.startup).not.toMatch(/not found|error/i);
  });

  it('-X g: the method in capitals; after --method= too', async () => {
    const [short, assigned, one] = await Promise.all([tab('crawl api api/keys -X g'), tab('crawl api api/keys --method=p'), tab('crawl api api/keys --method=pa')]);
    expect(short.line).toBe('crawl api api/keys -X GET ');
    expect(assigned.line).toBe('crawl api api/keys --method=P');
    expect(one.line).toBe('crawl api api/keys --method=PATCH ');
  });

  it('file names for --output, after --output=, after -F name=@; a quoted name stays quoted', async () => {
    const [spaced, assigned, field, fieldAssigned, quoted] = await Promise.all([
      tab('crawl job pages demo --output pages-'),
      tab('crawl job pages demo --output=di'),
      tab('crawl api api/keys -F body=@pages-'),
      tab('crawl api api/keys --field=body=@di'),
      tab("crawl job pages demo --output 'my ex"),
    ]);
    expect(spaced.line).toBe('crawl job pages demo --output pages-old.ndjson ');
    expect(assigned.line).toBe('crawl job pages demo --output=dist/');
    expect(field.line).toBe('crawl api api/keys -F body=@pages-old.ndjson ');
    expect(fieldAssigned.line).toBe('crawl api api/keys --field=body=@dist/');
    expect(quoted.line).toBe("crawl job pages demo --output 'my exports/");
  });

  it('commands on PATH for --to-command and the key-command / key-store-command settings', async () => {
    const partial = world.storeCommand.slice(0, -2);
    const [flag, assigned, setting, storeSetting] = await Promise.all([
      tab(`crawl keys rotate --to-command ${partial}`),
      tab(`crawl keys rotate --to-command=${partial}`),
      tab(`crawl config set key-command ${partial}`),
      tab(`crawl config set key-store-command ${partial}`),
    ]);
    expect(flag.line).toBe(`crawl keys rotate --to-command ${world.storeCommand} `);
    expect(assigned.line).toBe(`crawl keys rotate --to-command=${world.storeCommand} `);
    expect(setting.line).toBe(`crawl config set key-command ${world.storeCommand} `);
    expect(storeSetting.line).toBe(`crawl config set key-store-command ${world.storeCommand} `);
  });

  it('the user\'s quotes are not part of the words; words after the cursor are not asked about', async () => {
    // Ctrl-B four times: the cursor after `c`, before ` job`.
    const [quoted, before] = await Promise.all([tab("crawl 'job' 'st"), tab('crawl --profile c job\x02\x02\x02\x02')]);
    expect(quoted.line).toBe("crawl 'job' 'status' ");
    // zsh puts its space after the value, before the space that was there.
    expect(before.line).toBe('crawl --profile ci  job');
  });
});

describe('zsh loaded other ways: without compinit (macOS\'s default), as a file on $fpath, before compinit', needs('zsh', 'script'), () => {
  it('the script loads without an error at start-up; zsh completes nothing of crawl\'s', async () => {
    const r = await tab('crawl jo', 'no-compinit');
    expect(r.startup).toContain('CRAWL-FUNCTION:1');
    expect(r.startup).not.toMatch(/compdef|not found/);
    expect(r.line).toBe('crawl jo');
  });

  it('the script as _crawl on $fpath: the first Tab completes', async () => {
    const [partial, job] = await Promise.all([tab('crawl jo', 'fpath'), tab('crawl job w', 'fpath')]);
    expect(partial.line).toBe('crawl job ');
    expect(job.line).toBe('crawl job watch ');
  });

  it('compinit run later in ~/.zshrc: crawl completes from the first prompt on', async () => {
    const r = await tab('crawl jo', 'compinit-after');
    expect(r.startup).not.toMatch(/compdef|not found/);
    expect(r.line).toBe('crawl job ');
  });
});
