// `crawl sandbox` started from a clone (`node bin/crawl.js sandbox`), where no `crawl` need be on
// PATH: the lines it prints to run in another shell work there as printed.
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/text/shell.js';
import { tempDir, waitFor } from '../support/harness.js';
import { BIN, spawnCli, spawnProcess, type ProcessResult } from '../support/spawn.js';

describe('the lines to run in another shell', () => {
  it('from a clone, run by bash elsewhere with no crawl on PATH: the demo job is shown', async () => {
    const elsewhere = tempDir('crawl-another-shell-');
    let lines: string[] = [];
    let shown: Promise<ProcessResult> | undefined;
    try {
      const sandbox = await spawnCli(['sandbox', '--port', '0'], {
        timeoutMs: 30_000,
        onSpawn: (child, out) => {
          shown = waitFor(() => out.stderr().includes('Ctrl-C to stop.'), 20_000, 'the start-up lines')
            .then(() => {
              const text = out.stderr();
              lines = text.slice(text.indexOf('Use it from another shell:\n')).split('\n').slice(1, 3).map((line) => line.trim());
              return spawnProcess('bash', ['-c', `${lines.join('\n')}\ncommand -v crawl || echo 'no crawl on PATH'`], {
                cwd: elsewhere.dir,
                // node alone on PATH (and the shell's own tools): no crawl there.
                env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` },
              });
            })
            .finally(() => child.kill('SIGINT'));
        },
      });
      expect(sandbox.code, sandbox.stderr).toBe(0);
      expect(lines[1]).toBe(`node ${shellQuote(BIN)} job demo-running`);
      const r = await shown;
      expect(r?.code, r?.stderr).toBe(0);
      expect(r?.stdout).toMatch(/^id\tdemo-running\n/);
      expect(r?.stdout).toMatch(/\nno crawl on PATH\n$/);
    } finally {
      elsewhere.cleanup();
    }
  });
});
