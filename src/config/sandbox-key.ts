// The bootstrap key of `crawl sandbox`, kept per port in the state folder (platform/folders.ts:
// $XDG_STATE_HOME/crawl/sandbox-keys.json, else ~/.local/state/crawl/, on Windows %LOCALAPPDATA%): a login saved against a
// sandbox still works after the sandbox restarts on the same port. It guards made-up jobs on
// 127.0.0.1 only, so a file of mode 0600 is home enough. Best effort: a key that cannot be kept is
// a new one at each start, and the caller says so.
import { randomInt } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from '../platform/env.js';
import { stateDir } from '../platform/folders.js';
import { processId } from '../platform/host.js';
import type { Platform } from '../platform/platform.js';
import { makeFolders } from '../platform/make-folders.js';

const FILE = 'sandbox-keys.json';
/** What the sandbox issues: crk_ and 40 letters and digits. */
const KEY_SHAPE = /^crk_[A-Za-z0-9]{40}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export type KeptKey = { key: string; file: string; made: boolean } | { key: undefined; why: string };

/** The key kept for `port` (made and kept now if there is none yet). */
export function keptSandboxKey(env: Env, platform: Platform, port: number): KeptKey {
  const dir = stateDir(env, platform);
  if (dir === undefined) return { key: undefined, why: 'no home folder to keep it in' };
  const file = join(dir, FILE);
  const keys = readKeys(file);
  const known = keys[String(port)];
  if (known !== undefined) return { key: known, file, made: false };
  const key = 'crk_' + Array.from({ length: 40 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  try {
    makeFolders(dir, 0o700);
    // Whole or not at all: two sandboxes starting at once each leave a readable file.
    const temp = join(dir, `.${FILE}.${processId()}.tmp`);
    writeFileSync(temp, JSON.stringify({ ...keys, [String(port)]: key }, null, 2) + '\n', { mode: 0o600 });
    renameSync(temp, file);
  } catch (error) {
    return { key: undefined, why: `${file} cannot be written (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  return { key, file, made: true };
}

function readKeys(file: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => /^\d+$/.test(entry[0]) && typeof entry[1] === 'string' && KEY_SHAPE.test(entry[1])));
  } catch {
    return {};
  }
}
