// Process: what bash completion gained beside test/process/completion-bash.test.ts, in a real
// interactive bash (test/support/completion-shells.ts): methods typed in lower case, files after
// -F name=@, commands for --to-command and the command settings, the user's own quotes. And the
// script keeps to bash 3.2, macOS's /bin/bash: read for what bash 4 and later added, and run the
// way bash 3.2 runs it (no compopt), in a real bash 3.2 where the machine has one (CRAWL_TEST_BASH32,
// or `bash32` on PATH), else in this bash with compopt failing as it does there.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionWorld, limiter, PROMPT, ptyTab, type CompletionWorld } from '../support/completion-shells.js';
import { needs } from '../support/tools.js';

let world: CompletionWorld;
let script: string;
let rcfile: string;
/** The same, keeping what the completion function offered (bash 3.2's bind -x has no READLINE_LINE). */
let rcfileOffered: string;
/** That, with compopt failing as in bash 3.2, which has none. */
let rcfileNoCompopt: string;
let tabs = 0;
const atOnce = limiter(4);

beforeAll(async () => {
  world = completionWorld('crawl-bash-');
  script = await world.script('bash');
  rcfile = join(world.dir, 'bashrc');
  writeFileSync(
    rcfile,
    [`PS1='${PROMPT}'`, `source '${script}'`, `bind -x '"\\C-t": printf "%s" "$READLINE_LINE" >"$TAB_OUT.line"; printf "\\nLINE-SAVED\\n"'`, ''].join('\n'),
  );
  rcfileOffered = join(world.dir, 'bashrc-offered');
  writeFileSync(
    rcfileOffered,
    [
      `source '${rcfile}'`,
      'f=$(declare -f _crawl_complete); eval "_crawl_under_test${f#_crawl_complete}"',
      `_crawl_complete() { _crawl_under_test; local s=$?; printf '%s\\n' "\${COMPREPLY[@]}" >"$TAB_OUT.offered"; return $s; }`,
      '',
    ].join('\n'),
  );
  rcfileNoCompopt = join(world.dir, 'bashrc-no-compopt');
  writeFileSync(rcfileNoCompopt, `compopt() { return 2; }\nsource '${rcfileOffered}'\n`);
  writeFileSync(join(world.dir, 'inputrc'), '');
});
afterAll(() => world.cleanup());

/** The line after typing `line` and a Tab in an interactive bash. */
async function tab(line: string, bash?: { path: string; rc: string }): Promise<string> {
  return (await tabOffered(line, bash)).line;
}

/** The line, and what the completion function offered (with an rc file that keeps it). */
async function tabOffered(line: string, bash?: { path: string; rc: string }): Promise<{ line: string; offered: string[] }> {
  const out = join(world.dir, `tab-${++tabs}`);
  const env = world.env({ INPUTRC: join(world.dir, 'inputrc') });
  const command = `${bash?.path ?? 'bash'} --noprofile --rcfile '${bash?.rc ?? rcfile}' -i`;
  const r = await atOnce(() => ptyTab(command, line, { cwd: world.files, env, out }));
  expect(r.startup).not.toMatch(/error|not found/i);
  const offered = existsSync(`${out}.offered`) ? readFileSync(`${out}.offered`, 'utf8').split('\n').filter((l) => l !== '') : [];
  return { line: r.line, offered };
}

describe('bash completion', needs('bash', 'script'), () => {
  it.concurrent('-X g: the method in capitals; after --method= too', async () => {
    const [short, assigned] = await Promise.all([tab('crawl api api/keys -X g'), tab('crawl api api/keys --method=pa')]);
    expect(short).toBe('crawl api api/keys -X GET ');
    expect(assigned).toBe('crawl api api/keys --method=PATCH ');
  });

  it.concurrent('file names after -F name=@ and --field=name=@: a folder gets a slash and no space, a blank is escaped', async () => {
    const [file, folder, assigned, spaced] = await Promise.all([
      tab('crawl api api/keys -F body=@pages-'),
      tab('crawl api api/keys -F body=@di'),
      tab('crawl api api/keys --field=body=@di'),
      tab('crawl api api/keys -F body=@my'),
    ]);
    expect(file).toBe('crawl api api/keys -F body=@pages-old.ndjson ');
    expect(folder).toBe('crawl api api/keys -F body=@dist/');
    expect(assigned).toBe('crawl api api/keys --field=body=@dist/');
    expect(spaced).toBe('crawl api api/keys -F body=@my\\ exports/');
  });

  it.concurrent('commands on PATH for --to-command and the key-command / key-store-command settings', async () => {
    const partial = world.storeCommand.slice(0, -2);
    const lines = await Promise.all([
      tab(`crawl keys rotate --to-command ${partial}`),
      tab(`crawl keys rotate --to-command=${partial}`),
      tab(`crawl config set key-command ${partial}`),
      tab(`crawl config set key-store-command ${partial}`),
    ]);
    expect(lines).toEqual([
      `crawl keys rotate --to-command ${world.storeCommand} `,
      `crawl keys rotate --to-command=${world.storeCommand} `,
      `crawl config set key-command ${world.storeCommand} `,
      `crawl config set key-store-command ${world.storeCommand} `,
    ]);
  });

  it.concurrent('the user\'s quotes and backslashes are not part of the words; words after the cursor are not asked about', async () => {
    const lines = await Promise.all([
      tab("crawl 'job' 'st"),
      tab('crawl "job" "wa'),
      tab('crawl j\\ob st'),
      // Ctrl-B four times: the cursor after `c`, before ` job`.
      tab('crawl --profile c job\x02\x02\x02\x02'),
    ]);
    expect(lines).toEqual(["crawl 'job' 'status' ", 'crawl "job" "watch" ', 'crawl j\\ob status ', 'crawl --profile ci job']);
  });
});

/** What bash 4 and later added, which macOS's bash 3.2 does not have. */
const BASH4_ONLY: Array<[string, RegExp]> = [
  ['associative arrays', /\b(?:declare|local|typeset)\s+-[a-zA-Z]*A/],
  ['namerefs and global declarations', /\b(?:declare|local|typeset)\s+-[a-zA-Z]*[ng]/],
  ['case operators', /\$\{[#!]?\w+(?:\[[^\]]*\])?(?:\^\^?|,,?)/],
  ['transformations', /\$\{[^}]*@[QEPAaUuLK]\}/],
  ['mapfile and readarray', /\b(?:mapfile|readarray)\b/],
  ['coprocesses', /\bcoproc\b/],
  ['negative array subscripts', /\[\s*-\d+\s*\]\}/],
  ['negative substring lengths', /\$\{\w+:[^:}]*:\s*-\d+\}/],
  ['[[ -v ]]', /\[\[\s+-v\s/],
  ['|& and &>>', /\|&|&>>/],
  ['fall-through case terminators', /;;&|;&/],
  ['wait -n', /\bwait\s+-n\b/],
  ['printf time formats', /%\([^)]*\)T/],
  ['bash 4 variables', /\$\{?(?:EPOCHSECONDS|EPOCHREALTIME|BASHPID|BASH_ARGV0)\b/],
  ['bash 4 shell options', /\bshopt\s+-s\s+(?:globstar|lastpipe|direxpand|checkjobs|autocd)/],
];

describe('bash 3.2 (macOS\'s /bin/bash)', () => {
  it('the script uses nothing bash 4 added; compopt (bash 4) only where its failure is handled', () => {
    const text = readFileSync(script, 'utf8');
    for (const [what, pattern] of BASH4_ONLY) expect({ what, found: text.match(pattern)?.[0] }).toEqual({ what, found: undefined });
    const compopts = text.split('\n').filter((l) => /\bcompopt\b/.test(l) && !l.trim().startsWith('#'));
    expect(compopts.length).toBeGreaterThan(0);
    for (const l of compopts) expect(l).toMatch(/compopt -o \w+ 2>\/dev\/null/);
  });

  it('each check finds what it is for', () => {
    const samples = ['declare -A seen', 'local -n ref=x', '${word,,}', '${x@Q}', 'mapfile -t lines', 'coproc cat', '${a[-1]}', '${x:1:-1}', '[[ -v x ]]', 'a |& b', ';;&', 'wait -n', "printf '%(%s)T'", '$EPOCHSECONDS', 'shopt -s globstar'];
    for (const [i, [what, pattern]] of BASH4_ONLY.entries()) expect({ what, matched: pattern.test(samples[i] ?? '') }).toEqual({ what, matched: true });
  });

  const bash32 = process.env.CRAWL_TEST_BASH32 ?? whichBash32();
  it(`as bash 3.2 runs it (${bash32 === undefined ? 'this bash, compopt failing' : bash32}): commands, values, flags=values, file names`, needs('bash', 'script'), async () => {
    const bash = bash32 === undefined ? { path: 'bash', rc: rcfileNoCompopt } : { path: bash32, rc: rcfileOffered };
    if (bash32 !== undefined) expect(execFileSync(bash32, ['-c', 'echo $BASH_VERSION']).toString()).toMatch(/^3\.2\./);
    const cases: Array<[string, string[], string]> = [
      ['crawl jo', ['job'], 'crawl job '],
      ['crawl --profile=c', ['ci'], 'crawl --profile=ci '],
      ["crawl 'job' 'st", ['status'], "crawl 'job' 'status' "],
      ['crawl api api/keys -X g', ['GET'], 'crawl api api/keys -X GET '],
      ['crawl job pages demo --output pages-', ['pages-old.ndjson'], 'crawl job pages demo --output pages-old.ndjson '],
      // Without compopt, no way to keep the space off after a folder.
      ['crawl job pages demo --output=di', ['dist/'], 'crawl job pages demo --output=dist/ '],
      ['crawl api api/keys -F body=@pages-', ['@pages-old.ndjson'], 'crawl api api/keys -F body=@pages-old.ndjson '],
    ];
    const tabs = await Promise.all(cases.map(([line]) => tabOffered(line, bash)));
    expect(tabs.map((t) => t.offered)).toEqual(cases.map(([, offered]) => offered));
    // bash 3.2's bind -x cannot read the line back (no READLINE_LINE): the line is checked in this bash.
    if (bash32 === undefined) expect(tabs.map((t) => t.line)).toEqual(cases.map(([, , line]) => line));
  });
});

function whichBash32(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v bash32'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || undefined;
  } catch {
    return undefined;
  }
}
