// `crawl completion <shell>` printed without the bundle: shells run that line at every start (an
// rc file evals its output), and what it prints depends on nothing but the shell, so the build packs
// each script as the CLI prints it and bin/crawl.js prints it from the pack, on any stdout. Any
// other line (another shell, a flag) runs the CLI. Spawned: what bin/crawl.js does is what is tested.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli as runInProcess } from '../../src/app/run-cli.js';
import { helpOf } from '../../src/build/help-text.js';
import { SHELLS } from '../../src/commands/completion/completion.js';
import { testStreams } from '../../src/io/test-streams.js';
import { realClock } from '../../src/platform/clock.js';
import { runIntoFullDisk, runNotingBundle } from '../support/bundle-runs.js';
import { tempDir } from '../support/harness.js';
import { packedFiles } from '../support/pack.js';
import { needs } from '../support/tools.js';

const tmp = tempDir('crawl-completion-script-');
afterAll(() => tmp.cleanup());
const cache = join(tmp.dir, 'cache');
const pipe = { columns: 80, terminal: false };

const scriptOf = (shell: string): Promise<string> => helpOf(['completion', shell], pipe);
/** The launcher's completionScriptName (a CommonJS file of the build, which vitest does not transform). */
const completionScriptName = (shell: string): string => `completion/${shell}`;

describe('packed by the build', () => {
  it("every shell's script, as the CLI prints it", async () => {
    const packed = packedFiles();
    for (const shell of SHELLS) expect(packed.get(completionScriptName(shell)), shell).toBe(await scriptOf(shell));
    expect([...packed.keys()].filter((name) => name.startsWith('completion/')).sort()).toEqual(SHELLS.map(completionScriptName).sort());
  });

  it('what a script says depends on nothing but the shell: not the environment, the config, a terminal or the system', async () => {
    const config = join(tmp.dir, 'config');
    mkdirSync(config, { recursive: true, mode: 0o700 });
    writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles: { ci: { 'base-url': 'https://crawl.example' } } }), { mode: 0o600 });
    const elsewhere = { CRAWL_CONFIG_DIR: config, CRAWL_PROFILE: 'ci', CRAWL_BASE_URL: 'http://127.0.0.1:9', FORCE_COLOR: '3', HOME: tmp.dir, LANG: 'de_DE.UTF-8' };
    const broken = join(tmp.dir, 'broken-config');
    mkdirSync(broken, { recursive: true, mode: 0o700 });
    writeFileSync(join(broken, 'config.json'), '{ not json', { mode: 0o600 });
    for (const shell of SHELLS) {
      const script = await scriptOf(shell);
      expect(await helpOf(['completion', shell], pipe, elsewhere)).toBe(script);
      // Nor a config file that cannot be read, nor a profile that cannot be.
      expect(await helpOf(['completion', shell], pipe, { CRAWL_CONFIG_DIR: broken, CRAWL_PROFILE: '../no such profile' })).toBe(script);
      expect(await helpOf(['completion', shell], { columns: 40, terminal: true }, elsewhere)).toBe(script);
      for (const [os, home] of [['win32', 'C:\\Users\\ada'], ['darwin', '/Users/ada']] as const) {
        const streams = testStreams({ columns: 80, tty: { stdout: false } });
        await runInProcess(['completion', shell], { env: {}, streams, clock: realClock, nodeVersion: process.versions.node, platform: { os, home } });
        expect(streams.stdoutText(), `${os}: ${shell}`).toBe(script);
      }
    }
  });
});

describe('printed by bin/crawl.js', () => {
  it('to a pipe, without the bundle', async () => {
    await Promise.all(
      SHELLS.map(async (shell) => {
        expect(await runNotingBundle(['completion', shell], cache, tmp.dir)).toEqual({ code: 0, stdout: await scriptOf(shell), stderr: '', bundle: false });
      }),
    );
  });

  it('on a terminal, without the bundle', needs('script'), async () => {
    const run = await runNotingBundle(['completion', 'bash'], cache, tmp.dir, { tty: true });
    expect(run).toMatchObject({ code: 0, bundle: false });
    // The terminal turns each line break into CR LF.
    expect(run.stdout.replace(/\r\n/g, '\n')).toBe(await scriptOf('bash'));
  });

  it('any other line runs the CLI, which answers as it always did', async () => {
    const [other, flagged, none, extra, capital] = await Promise.all([
      runNotingBundle(['completion', 'ksh'], cache, tmp.dir),
      runNotingBundle(['completion', 'zsh', '--jq', '.'], cache, tmp.dir),
      runNotingBundle(['completion'], cache, tmp.dir),
      runNotingBundle(['completion', 'zsh', 'extra'], cache, tmp.dir),
      runNotingBundle(['completion', 'ZSH'], cache, tmp.dir),
    ]);
    expect(extra).toMatchObject({ code: 2, stdout: '', bundle: true });
    expect(extra.stderr).toMatch(/^crawl: too many arguments/);
    expect(capital).toMatchObject({ code: 2, stdout: '', bundle: true });
    expect(capital.stderr).toMatch(/^crawl: command-argument value 'ZSH' is invalid/);
    expect(other).toMatchObject({ code: 2, stdout: '', bundle: true });
    expect(other.stderr).toMatch(/^crawl: command-argument value 'ksh' is invalid for argument 'shell'\. Allowed choices are bash, zsh, fish, powershell\.\n/);
    expect(flagged).toMatchObject({ code: 2, stdout: '', bundle: true });
    expect(flagged.stderr).toContain('--jq does not apply');
    expect(none).toMatchObject({ code: 2, stdout: '', bundle: true });
    expect(none.stderr).toMatch(/^crawl: missing required argument 'shell'/);
  });

  // The CLI's own answer, whether bin/crawl.js printed the script or left the failure to the CLI.
  it('a script that cannot be written (a full disk): the one line and exit code of the CLI', async () => {
    expect(await runIntoFullDisk(['completion', 'zsh'])).toEqual({ code: 1, stderr: 'crawl: cannot write to standard output: no space left on device (ENOSPC)\n' });
  });
});
