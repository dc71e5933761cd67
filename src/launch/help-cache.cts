// The help pages this build has shown on a terminal (or for a line it packed no page for), kept in
// the user's cache folder beside V8's code cache (src/launch/user-cache.cts), so that `crawl job
// --help` asked again is answered before the bundle is read: a help page is all commander, the
// program and its formatting, for text that only the build, the command line and the layout
// decide. (Off a terminal, bin/crawl.js prints the pages the build packed.)
//
// Only a line of command words ending in --help or -h is answered from here (`crawl --help`,
// `crawl keys rotate -h`); what it printed the first time, whole, exit 0, is what it prints again.
// The cache is keyed by the build (which holds the commands' help and commander), the Node
// version and platform, the line, and the layout: on a terminal, its width; elsewhere, the 80
// columns help is laid out in. The text goes to a terminal as it is, so, like the code cache, it is
// read only from a folder of this user's that nobody else may write to, and only when its first
// line names the very key asked for.
import { fstatSync, readFileSync, readdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
// Types only: required by helpCache(), so that a page of the pack (load-bundle.cts) loads none of it.
import type * as UserCacheModule from './user-cache.cjs';

/** How help is laid out: on a terminal, as wide as it is; off one, 80 columns. */
export interface HelpLayout {
  terminal: boolean;
  columns: number;
}

/**
 * The layout help gets from src/io/system-streams.ts and app/program.ts, found the same way
 * without the bundle: fd 1 can be a terminal only if it is a character device other than
 * /dev/null (a stat; building process.stdout costs more), and then the stream says.
 */
export function layoutNow(): HelpLayout {
  let device = true;
  try {
    const stats = fstatSync(1);
    device = stats.isCharacterDevice() && stats.rdev !== statSync('/dev/null').rdev;
  } catch {
    // Unknown: the stream decides.
  }
  const terminal = device && process.stdout.isTTY === true;
  return { terminal, columns: (terminal && process.stdout.columns) || 80 };
}

export interface HelpCache {
  /** What this line printed before at this layout, or undefined. */
  text: string | undefined;
  /** Keeps what the line printed (run at `layout`) for the runs to come. */
  keep(text: string, layout: HelpLayout): void;
}

/** The entry of this build and command line, in the user's cache folder (none without one). */
export function helpCache(build: string, argv: readonly string[], layout: HelpLayout, env: NodeJS.ProcessEnv = process.env): HelpCache {
  const { isPrivate, userCacheDir, writePrivately } = require('./user-cache.cjs') as typeof UserCacheModule;
  const root = userCacheDir(env);
  const folder = root === undefined ? undefined : join(root, 'help');
  const keyOf = (at: HelpLayout): string => JSON.stringify([build, process.version, process.platform, at.terminal, at.columns, ...argv]);
  const fileOf = (key: string): string => join(folder ?? '', `${build}-${fnv1a(key)}.txt`);
  const key = keyOf(layout);
  return {
    text: folder === undefined || !isPrivate(fileOf(key)) ? undefined : readEntry(fileOf(key), key),
    keep(text, at) {
      if (folder === undefined || build === '') return;
      const kept = keyOf(at);
      writePrivately(fileOf(kept), Buffer.from(`${kept}\n${text}`));
      if (isPrivate(folder)) removeOtherBuilds(folder, build);
    },
  };
}

function readEntry(path: string, key: string): string | undefined {
  let data: string;
  try {
    data = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const end = data.indexOf('\n');
  return end >= 0 && data.slice(0, end) === key ? data.slice(end + 1) : undefined;
}

/** Every build (an upgrade, a rebuild in a checkout) makes new pages: the old would pile up unread. */
function removeOtherBuilds(folder: string, build: string): void {
  try {
    for (const name of readdirSync(folder)) {
      if (name.endsWith('.txt') && !name.startsWith(`${build}-`)) unlinkSync(join(folder, name));
    }
  } catch {
    // What is left is only disk space.
  }
}

/** A file name for a key (the key itself is the entry's first line, which decides). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

/**
 * Prints a kept page as the CLI prints help, straight to fd 1. false: nothing could be written
 * there (a full disk, say), and the bundle is to run instead, to say why in its own words. A closed
 * pipe ends quietly, as every command does.
 */
export function printHelpPage(text: string): boolean {
  const bytes = Buffer.from(text);
  let written: number;
  try {
    written = writeSync(1, bytes);
  } catch (error) {
    const failure = error as NodeJS.ErrnoException;
    if (failure.code === 'EPIPE') return true;
    if (failure.code !== 'EAGAIN') return false;
    written = 0;
  }
  // What a pipe could not take at once (non-blocking, or full): the stream waits for it.
  if (written < bytes.length) process.stdout.on('error', cannotWrite).write(bytes.subarray(written));
  return true;
}

function cannotWrite(failure: NodeJS.ErrnoException): void {
  if (failure.code === 'EPIPE') return;
  process.stderr.write(`crawl: cannot write to standard output: ${failure.code ?? failure.message}\n`);
  process.exitCode = 1;
}
