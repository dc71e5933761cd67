// The streams of a run and what they allow (src/io/io.ts), on memory terminals: under TERM=dumb,
// stderr redraws nothing in place and nothing has colour, so every command writes plain lines.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crawl } from '../support/harness.js';
import { sandboxSuite } from '../support/sandbox.js';

const suite = sandboxSuite();

const ESC = '\u001b';

describe('TERM=dumb: no cursor movement, no escapes', () => {
  it('job watch: plain progress lines instead of the live line', async () => {
    suite.fx.sandbox.addJob({ id: 'dumb-watch', status: 'running', pagesTotal: 4, advance: { perPoll: 2 } });
    const r = await crawl(['job', 'watch', 'dumb-watch'], { env: { ...suite.fx.env, TERM: 'dumb' }, tty: true });
    expect(r.code).toBe(0);
    expect(r.output).not.toContain(ESC);
    expect(r.stderr).toMatch(/^\[0:00\] running 2\/4 pages \(50%\)\n\[0:02\] completed 4\/4 pages \(100%\)\n$/);
  });

  it('job pages --output: the last line only, plain; tables and fields without colour', async () => {
    const file = join(suite.dir, 'dumb.ndjson');
    const [pages, keys, job] = await Promise.all([
      crawl(['job', 'pages', 'demo-large', '--output', file], { env: { ...suite.fx.env, TERM: 'dumb', LANG: 'C' }, tty: true }),
      crawl(['keys', 'list'], { env: { ...suite.fx.env, TERM: 'dumb' }, tty: true }),
      crawl(['job', 'demo-errored'], { env: { ...suite.fx.env, TERM: 'dumb' }, tty: true }),
    ]);
    expect(pages.code).toBe(0);
    expect(pages.stderr).toBe(`Wrote ${file}: 250/250 records (100%)\n`);
    for (const r of [keys, job]) {
      expect(r.code).toBe(0);
      expect(r.output).not.toContain(ESC);
    }
  });
});
