// The hint under a job view ("Export the pages with: crawl job pages <id>") on a narrow terminal:
// fitted to the width like the fields above it, broken between words, never inside one, and the
// command still pasteable (continued with ` \`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../../src/io/string-width.js';
import { sandboxFixture, type SandboxFixture } from '../../helpers/sandbox.js';
import { crawl } from '../../support/harness.js';
import { screenOf } from '../../support/screen.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  fx.sandbox.addJob({ id: 'a-job-with-a-rather-long-identifier', status: 'completed', pagesTotal: 3 });
  fx.sandbox.addJob({ id: 'job-0123456789', status: 'completed', pagesTotal: 3 });
  fx.sandbox.addJob({ id: 'still-going-job', status: 'running', pagesTotal: 10, pagesFinished: 2 });
});
afterAll(() => fx.close());

/** The hint's rows on the screen: those after the last blank row. */
function hintRows(rows: string[]): string[] {
  return rows.slice(rows.lastIndexOf('') + 1);
}

/** The rows joined as a shell would read them: ` \` continues a line. */
function pasted(rows: string[]): string {
  return rows.map((row) => row.trim()).join(' ').replace(/ \\ /g, ' ');
}

describe('the hint under job status', () => {
  it.each([24, 30, 40])('%i columns: every row within the width, no word cut, the command whole', async (columns) => {
    const id = 'job-0123456789';
    const r = await crawl(['job', 'status', id, '--no-color'], { env: fx.env, tty: true, columns });
    expect(r.code).toBe(0);
    const screen = await screenOf(r.output, columns);
    const rows = hintRows(screen.rows);
    for (const row of rows) expect(displayWidth(row), row).toBeLessThanOrEqual(columns);
    // The terminal wrapped nothing: each row is what crawl wrote, a whole line.
    expect(r.stdout).toContain(rows.join('\n'));
    expect(pasted(rows)).toBe(`Export the pages with: crawl job pages ${id}`);
  });

  it('an id wider than the terminal: on a line of its own, whole (the terminal wraps it, nothing cuts it)', async () => {
    const id = 'a-job-with-a-rather-long-identifier';
    const r = await crawl(['job', 'status', id, '--no-color'], { env: fx.env, tty: true, columns: 30 });
    expect(r.stdout.trimEnd().split('\n').slice(-3)).toEqual(['Export the pages with:', '    crawl job pages \\', `      ${id}`]);
  });

  it('wide enough: one line, as before', async () => {
    const r = await crawl(['job', 'status', 'a-job-with-a-rather-long-identifier'], { env: fx.env, tty: true, columns: 100 });
    expect(hintRows((await screenOf(r.output, 100)).rows)).toEqual(['Export the pages with: crawl job pages a-job-with-a-rather-long-identifier']);
  });

  it('a job still going: the --wait form, fitted the same way', async () => {
    const r = await crawl(['job', 'status', 'still-going-job'], { env: fx.env, tty: true, columns: 30 });
    const rows = hintRows((await screenOf(r.output, 30)).rows);
    for (const row of rows) expect(displayWidth(row), row).toBeLessThanOrEqual(30);
    expect(pasted(rows)).toBe('Export the pages once it finishes with: crawl job pages still-going-job --wait');
  });
});

describe('the note under job cancel', () => {
  it('a job still running after the cancel, on a narrow terminal: fitted, the command whole', async () => {
    fx.sandbox.addJob({ id: 'lagging-job', status: 'running', pagesTotal: 100, pagesFinished: 5, cancel: { lagPolls: 3 } });
    const r = await crawl(['job', 'cancel', 'lagging-job'], { env: fx.env, tty: true, columns: 40 });
    expect(r.code).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(40);
    expect(pasted(lines)).toBe('Cancellation requested; the job is still running. Follow it with: crawl job watch lagging-job');
  });
});
