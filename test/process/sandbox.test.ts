// `crawl sandbox` started as users start it (from a clone as `node bin/crawl.js sandbox`, through a
// `crawl` link on PATH, through a project's node_modules/.bin): the lines it prints to run in
// another shell name crawl so that they work there as printed.
import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/text/shell.js';
import { VERSION } from '../../src/version.js';
import { tempDir, waitFor } from '../support/harness.js';
import { BIN, spawnProcess, type ProcessResult } from '../support/spawn.js';
import { toolOptions } from '../support/tools.js';

/** node alone on PATH (and the shell's own tools): no crawl there. */
const NODE_ONLY = `${dirname(process.execPath)}:/usr/bin:/bin`;

/**
 * Starts the sandbox with `command args` and `env`; once it has printed its lines, runs the two to
 * run in another shell (or the first `run` of them) with bash in `elsewhere` (PATH: `otherPath`),
 * then stops it.
 */
async function linesRunElsewhere(command: string, args: string[], env: Record<string, string>, elsewhere: string, otherPath: string, run = 2): Promise<{ sandbox: ProcessResult; lines: string[]; shown: ProcessResult | undefined }> {
  let lines: string[] = [];
  let shown: Promise<ProcessResult> | undefined;
  const sandbox = await spawnProcess(command, [...args, 'sandbox', '--port', '0'], {
    env,
    timeoutMs: 30_000,
    onSpawn: (child, out) => {
      shown = waitFor(() => out.stderr().includes('Ctrl-C to stop.'), 20_000, 'the start-up lines')
        .then(() => {
          const text = out.stderr();
          lines = text.slice(text.indexOf('Use it from another shell:\n')).split('\n').slice(1, 3).map((line) => line.trim());
          return spawnProcess('bash', ['-c', `${lines.slice(0, run).join('\n')}\necho "$CRAWL_BASE_URL"\ncommand -v crawl || echo 'no crawl on PATH'`], { cwd: elsewhere, env: { PATH: otherPath } });
        })
        .finally(() => child.kill('SIGINT'));
    },
  });
  return { sandbox, lines, shown: await shown };
}

// The bash that runs the lines is the one on NODE_ONLY.
describe('the lines to run in another shell', toolOptions(['bash'], { ...process.env, PATH: NODE_ONLY }), () => {
  it('from a clone, run by bash elsewhere with no crawl on PATH: the demo job is shown', async () => {
    const elsewhere = tempDir('crawl-another-shell-');
    try {
      const { sandbox, lines, shown: r } = await linesRunElsewhere(process.execPath, [BIN], { PATH: NODE_ONLY }, elsewhere.dir, NODE_ONLY);
      expect(sandbox.code, sandbox.stderr).toBe(0);
      expect(lines[1]).toBe(`node ${shellQuote(BIN)} job demo-running`);
      expect(r?.code, r?.stderr).toBe(0);
      expect(r?.stdout).toMatch(/^id\tdemo-running\n/);
      expect(r?.stdout).toMatch(/\nhttp:\/\/127\.0\.0\.1:\d+\nno crawl on PATH\n$/);
    } finally {
      elsewhere.cleanup();
    }
  });

  it('started as `crawl` through a link on PATH (a global install, npm link): `crawl job demo-running`, which bash elsewhere runs', async () => {
    const tmp = tempDir('crawl-on-path-');
    try {
      const bin = join(tmp.dir, 'prefix', 'bin');
      mkdirSync(bin, { recursive: true });
      symlinkSync(BIN, join(bin, 'crawl'));
      const PATH = `${bin}:${NODE_ONLY}`;
      const elsewhere = join(tmp.dir, 'elsewhere');
      mkdirSync(elsewhere);
      const { sandbox, lines, shown: r } = await linesRunElsewhere(join(bin, 'crawl'), [], { PATH }, elsewhere, PATH);
      expect(sandbox.code, sandbox.stderr).toBe(0);
      expect(lines[1]).toBe('crawl job demo-running');
      expect(r?.code, r?.stderr).toBe(0);
      expect(r?.stdout).toMatch(/^id\tdemo-running\n/);
      expect(r?.stdout).toMatch(new RegExp(`\\n${join(bin, 'crawl')}\\n$`));
    } finally {
      tmp.cleanup();
    }
  });

  it('started by a project\'s npm script (node_modules/.bin/crawl, first on the run\'s PATH only): `npx @webcrawl/cli@<version>`, never `crawl` or `npx crawl`', async () => {
    const tmp = tempDir('crawl-npm-script-');
    try {
      const dotBin = join(tmp.dir, 'proj', 'node_modules', '.bin');
      mkdirSync(dotBin, { recursive: true });
      symlinkSync(BIN, join(dotBin, 'crawl'));
      const elsewhere = join(tmp.dir, 'elsewhere');
      mkdirSync(elsewhere);
      // npm runs the script with its .bin first on PATH; the user's other shell has no such folder.
      const env = { PATH: `${dotBin}:${NODE_ONLY}`, npm_command: 'run-script', npm_lifecycle_event: 'sandbox' };
      // Only the line that sets the variables is run there: npx would reach for a registry.
      const { sandbox, lines, shown: r } = await linesRunElsewhere(join(dotBin, 'crawl'), [], env, elsewhere, NODE_ONLY, 1);
      expect(sandbox.code, sandbox.stderr).toBe(0);
      expect(lines[1]).toBe(`npx @webcrawl/cli@${VERSION} job demo-running`);
      expect(sandbox.stderr).toContain(`\nBack to how they started: npx @webcrawl/cli@${VERSION} sandbox --reset (from another shell, with the same CRAWL_BASE_URL)\n`);
      expect(sandbox.stderr).not.toContain('npx crawl');
      expect(r?.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\nno crawl on PATH\n$/);
    } finally {
      tmp.cleanup();
    }
  });
});
