// The live line in a real tmux (3.3 and later: scroll-on-clear is on by default), started at the
// pane's top row: tmux takes an erase to the end of the screen from there for a clear and copies
// the screen into its scrollback, so a line drawn that way leaves a frame in the history at every
// redraw. Here the history must stay empty, and a resize mid-watch (tmux rewraps the line) must
// leave no remnant on the screen.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { BIN, cleanEnv } from '../support/spawn.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';
import { needs } from '../support/tools.js';
import { shellQuote } from '../../src/text/shell.js';

const run = promisify(execFile);
/** A tmux server for each session: the watches run side by side, and a server's sessions share its sizes. */
const SESSIONS = ['top', 'narrowed', 'background'];
const socket = (session: string): string => `crawl-test-${process.pid}-${session}`;
const tmux = (session: string, ...args: string[]): Promise<{ stdout: string }> => run('tmux', ['-L', socket(session), '-f', '/dev/null', ...args]);

let fx: SandboxFixture;
let tmp: { dir: string; cleanup: () => void };
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  tmp = tempDir('crawl-tmux-');
  const requests = fx.sandbox.requests;
  const push = requests.push;
  requests.push = function (...items) {
    const length = push.apply(this, items);
    for (const [id, { n, action }] of pollActions) {
      if (requests.filter((q) => q.method === 'GET' && q.url === `/api/crawl/${id}`).length === n) {
        pollActions.delete(id);
        action();
      }
    }
    return length;
  };
});
afterAll(async () => {
  await Promise.all(SESSIONS.map((session) => tmux(session, 'kill-server').catch(() => undefined)));
  tmp.cleanup();
  await fx.close();
});

/** What to do when the sandbox receives the n-th GET of a job, by job id (the watches run side by side). */
const pollActions = new Map<string, { n: number; action: () => void }>();

/** Calls `action` once, when the sandbox receives the `n`-th GET of job `id`. */
function onPoll(id: string, n: number, action: () => void): void {
  pollActions.set(id, { n, action });
}

/**
 * `crawl job watch <id>` alone in a new tmux session `columns` wide (nothing above it: the line is
 * on the top row); resolves once it has exited, with the pane's history (its size and rows) and
 * the rows on its screen.
 */
async function watchInTmux(
  session: string,
  id: string,
  columns: number,
  during?: { poll: number; columns: number },
  /** Run as a background job of a shell with job control: a process group of its own, which the terminal's SIGWINCH never reaches. */
  background = false,
): Promise<{ history: number; historyRows: string[]; rows: string[] }> {
  const env = cleanEnv({ CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: fx.sandbox.key, CRAWL_CONFIG_DIR: tmp.dir, LANG: 'C.UTF-8' });
  const script = join(tmp.dir, `${session}.sh`);
  const exports = Object.entries(env).map(([name, value]) => `export ${name}=${shellQuote(value ?? '')}`);
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      ...exports,
      `export TERM=tmux-256color`,
      ...(background ? ['set -m'] : []),
      `${shellQuote(process.execPath)} ${shellQuote(BIN)} job watch ${id} --interval 0.5${background ? ' &\nwait $!' : ''}`,
      `tmux -L ${socket(session)} wait-for -S ${session}`,
      'exec sleep 600',
      '',
    ].join('\n'),
  );
  chmodSync(script, 0o700);
  if (during) onPoll(id, during.poll, () => resizeNow(session, during.columns));
  await tmux(session, 'new-session', '-d', '-s', session, '-x', String(columns), '-y', '20', script);
  // Returns at once if the watch has already signalled (tmux keeps a signal nobody waited for yet).
  await tmux(session, 'wait-for', session);
  const history = Number((await tmux(session, 'display-message', '-p', '-t', session, '#{history_size}')).stdout.trim());
  const capture = async (...from: string[]): Promise<string[]> => (await tmux(session, 'capture-pane', '-p', ...from, '-t', session)).stdout.split('\n').map((row) => row.trimEnd());
  const rows = await capture();
  const historyRows = history === 0 ? [] : await capture('-S', '-', '-E', '-1');
  return { history, historyRows, rows };
}

/**
 * Narrows the session's window, and returns once the pane's terminal has the new width: tmux
 * rewraps its screen at once but tells the terminal (the size a program reads) a moment later,
 * and a frame drawn in between is fitted to a width the screen no longer has, which nothing can
 * tell. Called as the sandbox takes a poll, before it answers: the frame that answer brings is
 * drawn after.
 */
function resizeNow(session: string, columns: number): void {
  execFileSync('tmux', ['-L', socket(session), 'resize-window', '-t', session, '-x', String(columns), '-y', '20']);
  const tty = execFileSync('tmux', ['-L', socket(session), 'display-message', '-p', '-t', session, '#{pane_tty}'], { encoding: 'utf8' }).trim();
  // A hang guard, not a measure: the sandbox is blocked meanwhile, and so is the test's timeout.
  const giveUp = Date.now() + 10_000;
  while (execFileSync('stty', ['-F', tty, 'size'], { encoding: 'utf8' }).trim() !== `20 ${columns}`) {
    if (Date.now() > giveUp) throw new Error(`tmux did not give ${tty} ${columns} columns`);
  }
}

// Side by side: each watch waits out its polls, in a tmux session and on a job of its own.
describe.concurrent('job watch in tmux', needs('tmux'), () => {
  it('a line on the top row, redrawn many times: nothing goes into the scrollback', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'tmux-top', status: 'running', pagesTotal: 100, advance: { perPoll: 10 } });
    const { history, historyRows, rows } = await watchInTmux('top', 'tmux-top', 80);
    expect(history, historyRows.join('\n')).toBe(0);
    expect(rows.filter((row) => /^ {2}completed .*100\/100 pages/.test(row))).toHaveLength(1);
    expect(rows.some((row) => row.includes('running'))).toBe(false);
  });

  it('narrowed mid-watch (tmux rewraps the line): no remnant, one line at the end', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'tmux-narrowed', status: 'running', pagesTotal: 100, advance: { perPoll: 10 } });
    const { history, historyRows, rows } = await watchInTmux('narrowed', 'tmux-narrowed', 100, { poll: 3, columns: 36 });
    // At most what tmux moves itself when it rewraps the top row (the first part of the line, the
    // cursor kept on its row): one row, never a frame a redraw left.
    expect(history, historyRows.join('\n')).toBeLessThanOrEqual(1);
    expect(rows.some((row) => row.includes('running')), rows.join('\n')).toBe(false);
    expect(rows.some((row) => /[█░]/.test(row)), rows.join('\n')).toBe(false);
    expect(rows.filter((row) => /^ {2}completed /.test(row))).toHaveLength(1);
  });

  it('narrowed while it runs outside the foreground group (no SIGWINCH comes): each frame is fitted to the width of its moment', async ({ expect }) => {
    fx.sandbox.addJob({ id: 'tmux-bg', status: 'running', pagesTotal: 100, advance: { perPoll: 10 } });
    const { rows } = await watchInTmux('background', 'tmux-bg', 100, { poll: 3, columns: 36 }, true);
    // A frame fitted to the old width would wrap: its remnant rows stay, with the progress bar in them.
    expect(rows.some((row) => row.includes('running')), rows.join('\n')).toBe(false);
    expect(rows.some((row) => /[█░]/.test(row)), rows.join('\n')).toBe(false);
    expect(rows.filter((row) => /^ {2}completed /.test(row)), rows.join('\n')).toHaveLength(1);
  });
});
