// `keys rotate --if-older-than <duration>`: a scheduled job (a nightly CI run) rotates the key in
// use only once it is old enough, and otherwise says so and succeeds. The key's age is the
// createdAt the service lists for it: a listed key whose creation time cannot be read is an
// error, never a guess either way.
import type { ApiKey } from '../../../api/keys.js';
import { keyLabel } from '../../../api/key-label.js';
import { describeListed, listedTime } from '../../../api/key-times.js';
import type { Deps } from '../../../deps.js';
import { CrawlError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { writeJson } from '../../../io/json.js';
import { spanBefore, type Span } from '../../../text/duration.js';
import { relativeTime } from '../../../text/format.js';
import { crawlCommand } from '../../shared/suggest.js';

/** --if-older-than: the duration, and its text as given (for messages). */
export interface IfOlderThan {
  span: Span;
  text: string;
}

/** The key in use is not old enough: nothing is done. */
export interface NotDue {
  key: ApiKey;
  createdAt: number;
  message: string;
}

/**
 * Whether the key in use is due: created longer ago than --if-older-than. Undefined when it is
 * (the rotation goes on); a NotDue when it is not; throws when its creation time cannot be read.
 */
export function notDue(deps: Deps, key: ApiKey, ifOlderThan: IfOlderThan): NotDue | undefined {
  const createdAt = listedTime(key.createdAt);
  if (typeof createdAt !== 'number') {
    throw new CrawlError(
      `the service lists the key in use ${keyLabel(key)} without a creation time that can be read (createdAt: ${describeListed(key.createdAt)}): whether it is older than ${ifOlderThan.text} is not known, so nothing was changed`,
      ExitCode.failure,
      { hint: `to rotate it whatever its age, run \`${crawlCommand(deps, ['keys', 'rotate'])}\` without --if-older-than` },
    );
  }
  const now = deps.clock.now();
  if (createdAt < spanBefore(now, ifOlderThan.span)) return undefined;
  const created = new Date(createdAt).toISOString().replace('.000Z', 'Z');
  const message = `Not due: the key in use ${keyLabel(key)} is ${age(createdAt, now)} (created ${created}), not older than ${ifOlderThan.text}; nothing was changed.`;
  return { key, createdAt, message };
}

/** How old a key is, for people: `12 days old`; a creation time ahead of this machine's clock is said as such. */
function age(createdAt: number, now: number): string {
  const ago = relativeTime(new Date(createdAt).toISOString(), now) ?? '';
  if (ago === 'just now') return 'less than a minute old';
  if (!ago.endsWith(' ago')) return "newer than this machine's clock";
  return `${ago.slice(0, -' ago'.length)} old`;
}

/** Exit 0: one line on stderr, or with --json the document `{"rotated": false, "reason": "not-due", ...}`. */
export function reportNotDue(deps: Deps, due: NotDue): number {
  if (deps.globals.json) {
    const { key } = due;
    writeJson(
      deps.io,
      JSON.stringify({
        rotated: false,
        reason: 'not-due',
        message: due.message,
        old: { id: key.id, name: key.name ?? null, prefix: key.keyPrefix ?? null, createdAt: key.createdAt ?? null },
      }),
    );
  } else {
    deps.io.stderr.write(`${due.message}\n`);
  }
  return ExitCode.ok;
}
