// The job ids this user looked at lately, for shell completion (`crawl job <Tab>`): a small file in
// the state folder, $XDG_STATE_HOME/crawl/recent-jobs.json (else ~/.local/state/crawl/, or
// %LOCALAPPDATA%\crawl\state\ on Windows: platform/folders.ts).
// CRAWL_JOB_HISTORY=off keeps none. Best effort throughout: it never fails a command, and a
// damaged or foreign file is read as empty and replaced.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from '../platform/env.js';
import { stateDir } from '../platform/folders.js';
import { processId } from '../platform/host.js';
import type { Platform } from '../platform/platform.js';
import { makeFolders } from '../platform/make-folders.js';

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

export function historyEnabled(env: Env): boolean {
  return !['0', 'off', 'false', 'no'].includes((env.CRAWL_JOB_HISTORY ?? '').trim().toLowerCase());
}

export function readJobHistory(env: Env, platform: Platform): RecentJob[] {
  const dir = stateDir(env, platform);
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
export function recordJob(env: Env, platform: Platform, id: string, origin: string): void {
  const dir = stateDir(env, platform);
  if (dir === undefined || !historyEnabled(env) || !OFFERABLE.test(id)) return;
  const known = readJobHistory(env, platform);
  if (known[0]?.id === id && known[0].origin === origin) return;
  const next = [{ id, origin }, ...known.filter((e) => !(e.id === id && e.origin === origin))].slice(0, HISTORY_LIMIT);
  try {
    // Whole or not at all: a reader (Tab, in another shell) never sees half a file. The folder is
    // made only when it is not there yet (the first id ever kept), not at every write.
    const temp = join(dir, `.${FILE}.${processId()}.tmp`);
    const write = (): void => writeFileSync(temp, JSON.stringify(next) + '\n', { mode: 0o600 });
    try {
      write();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      makeFolders(dir, 0o700);
      write();
    }
    renameSync(temp, join(dir, FILE));
  } catch {
    // A read-only home, a full disk: completion just offers less.
  }
}
