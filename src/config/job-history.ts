// The job ids this user looked at lately, for shell completion (`crawl job <Tab>`): a small file in
// the XDG state folder, $XDG_STATE_HOME/crawl/recent-jobs.json (else ~/.local/state/crawl/).
// CRAWL_JOB_HISTORY=off keeps none. Best effort throughout: it never fails a command, and a
// damaged or foreign file is read as empty and replaced.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Env } from '../platform/env.js';
import { processId } from '../platform/host.js';

export interface RecentJob {
  id: string;
  /** The service it was read from (scheme, host and port): completion offers the current one's. */
  origin: string;
}

/** How many ids are kept, the most recent first. */
export const HISTORY_LIMIT = 50;
const FILE = 'recent-jobs.json';
/** Ids worth offering to a shell: no white space or control characters, not absurdly long. */
const OFFERABLE = /^[\x21-\x7e]{1,128}$/;

/** The state folder, or undefined when the run's environment names no home (a test's, say). */
export function stateDir(env: Env): string | undefined {
  if (env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME)) return join(env.XDG_STATE_HOME, 'crawl');
  return env.HOME ? join(env.HOME, '.local', 'state', 'crawl') : undefined;
}

export function historyEnabled(env: Env): boolean {
  return !['0', 'off', 'false', 'no'].includes((env.CRAWL_JOB_HISTORY ?? '').trim().toLowerCase());
}

export function readJobHistory(env: Env): RecentJob[] {
  const dir = stateDir(env);
  if (dir === undefined || !historyEnabled(env)) return [];
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(dir, FILE), 'utf8'));
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((e): e is RecentJob => typeof e?.id === 'string' && typeof e?.origin === 'string' && OFFERABLE.test(e.id)).slice(0, HISTORY_LIMIT);
  } catch {
    return [];
  }
}

/** Puts `id` first (once). Nothing is written when it is first already: the common `crawl job <id>` again. */
export function recordJob(env: Env, id: string, origin: string): void {
  const dir = stateDir(env);
  if (dir === undefined || !historyEnabled(env) || !OFFERABLE.test(id)) return;
  const known = readJobHistory(env);
  if (known[0]?.id === id && known[0].origin === origin) return;
  const next = [{ id, origin }, ...known.filter((e) => !(e.id === id && e.origin === origin))].slice(0, HISTORY_LIMIT);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Whole or not at all: a reader (Tab, in another shell) never sees half a file.
    const temp = join(dir, `.${FILE}.${processId()}.tmp`);
    writeFileSync(temp, JSON.stringify(next) + '\n', { mode: 0o600 });
    renameSync(temp, join(dir, FILE));
  } catch {
    // A read-only home, a full disk: completion just offers less.
  }
}
