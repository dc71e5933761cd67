import type { Deps } from '../../../deps.js';
import { keyringReachable } from '../../../config/key-home.js';
import { describeSource, type ResolvedKey } from '../../../config/settings.js';
import { CrawlError, InterruptedError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { parseBaseUrl } from '../../../http/url.js';
import { maskKey } from '../../../text/mask.js';
import { printFields } from '../../../io/table.js';
import { crawlCommand } from '../../shared/suggest.js';
import { keyAccepted } from './check.js';
import { writeJson } from '../../../io/json.js';

/**
 * Base URL, profile, where the key comes from (masked), and whether the service accepts it: exit
 * 0 or 4. When the check itself fails (no answer, a 5xx), what is known here is still shown (on a
 * terminal, and with --json as `accepted: null`), and the failure is reported with its own exit code.
 * No key at all is exit 2 with the usual message and hint, as for every command that needs one.
 */
export type StatusOptions = Record<string, never>;

export async function authStatusRun(deps: Deps, _options: StatusOptions): Promise<number> {
  const profile = deps.settings.profile().value;
  const base = deps.settings.requireBaseUrl();
  const baseHref = parseBaseUrl(base.value).href;
  // Where the profile keeps its key, whether or not CRAWL_API_KEY overrides it.
  const stored = deps.settings.keyStore();
  let key: ResolvedKey | undefined;
  let failure: CrawlError | undefined;
  try {
    key = await deps.settings.apiKey(deps.signal);
  } catch (error) {
    if (error instanceof InterruptedError || !(error instanceof CrawlError)) throw error;
    failure = error;
  }
  // Nothing to check: after what is known here, the error every command gives without a key.
  const noKey = key === undefined && failure === undefined;
  if (noKey) failure = await deps.settings.requireApiKey(deps.signal).then(() => undefined, (error: CrawlError) => error);
  let result: { accepted: boolean; status: number } | undefined;
  if (key) {
    try {
      result = await keyAccepted(deps, key.value);
    } catch (error) {
      if (error instanceof InterruptedError || !(error instanceof CrawlError)) throw error;
      failure = error;
    }
  }
  const keyFailed = failure !== undefined && key === undefined && !noKey;
  const location = key?.source === 'env' ? 'CRAWL_API_KEY' : (stored?.describe() ?? null);
  const overridden = key?.source === 'env' && stored !== undefined ? stored.describe() : undefined;
  const plaintext = stored?.kind === 'file';
  const notes: string[] = [];
  if (overridden !== undefined) notes.push(`CRAWL_API_KEY overrides the key of profile "${profile}" (in the ${overridden})`);
  // Advised only where a keyring is there to take it: elsewhere a login would write plaintext again.
  if (plaintext && !deps.globals.json && (await keyringReachable(deps.settings, deps.signal))) {
    notes.push(`the key is in plaintext in the config file: move it into the system keyring with \`${crawlCommand(deps, ['auth', 'login'])}\``);
  }
  const accepted = result?.accepted === true;
  if (deps.globals.json) {
    writeJson(
      deps.io,
      JSON.stringify({
        profile,
        baseUrl: baseHref,
        baseUrlSource: base.source,
        apiKey: key ? maskKey(key.value) : null,
        apiKeySource: key?.source ?? null,
        keyStore: key?.source === 'env' ? null : (stored?.kind ?? null),
        keyLocation: location,
        overriddenStore: overridden ?? null,
        plaintext,
        // null: the check failed, so whether the service accepts the key is not known.
        accepted: failure && !noKey ? null : accepted,
        httpStatus: result?.status ?? failure?.httpStatus ?? null,
      }),
    );
  } else if (deps.io.stdoutIsTTY) {
    const style = await deps.style();
    const verdict = noKey
      ? style.red('✗ no key (below)')
      : keyFailed
        ? style.yellow('? the key could not be read (below)')
        : failure
          ? style.yellow('? not checked: the check failed (below)')
          : accepted
            ? style.green('✓ the service accepts this key')
            : style.red(`✗ the service rejects this key (HTTP ${result?.status})`);
    await printFields(deps.io, [
      ['Profile', profile],
      ['Base URL', `${baseHref} (from ${describeSource(base.source, 'base-url')})`],
      ['Key', key ? `${maskKey(key.value)} (from ${location})` : keyFailed ? `unreadable (${location})` : 'none'],
      ['Status', verdict],
    ]);
    for (const note of notes) deps.io.stderr.write(`note: ${note}\n`);
  } else if (!failure) {
    await printFields(deps.io, [
      ['profile', profile],
      ['base-url', baseHref],
      ['base-url-source', base.source],
      ['api-key', key ? maskKey(key.value) : ''],
      ['api-key-source', key?.source ?? ''],
      ['key-location', location ?? ''],
      ['accepted', String(accepted)],
    ]);
    for (const note of notes) deps.io.stderr.write(`note: ${note}\n`);
  }
  if (failure) {
    // Off a terminal nothing went to stdout (no verdict a script could take): what is known here
    // goes into the one error line.
    const known = deps.io.stdoutIsTTY || deps.globals.json ? '' : ` (profile "${profile}", ${baseHref}, key ${key ? maskKey(key.value) : 'none'}${location === null ? '' : ` in ${location}`})`;
    const message = keyFailed || noKey ? failure.message : `cannot check the key${known} with the service: ${failure.message}`;
    throw new CrawlError(message, failure.exitCode, {
      ...(failure.httpStatus === undefined ? {} : { httpStatus: failure.httpStatus }),
      ...(failure.hint === undefined ? {} : { hint: failure.hint }),
      cause: failure,
    });
  }
  return accepted ? ExitCode.ok : ExitCode.auth;
}
