import type { Deps } from '../../../deps.js';
import { describeSource } from '../../../config/settings.js';
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
 */
export type StatusOptions = Record<string, never>;

export async function showAuthStatus(deps: Deps, _options: StatusOptions): Promise<number> {
  const profile = deps.settings.profile().value;
  const base = deps.settings.requireBaseUrl();
  const baseHref = parseBaseUrl(base.value).href;
  const key = deps.settings.apiKey();
  let result: { accepted: boolean; status: number } | undefined;
  let failure: CrawlError | undefined;
  if (key) {
    try {
      result = await keyAccepted(deps, key.value);
    } catch (error) {
      if (error instanceof InterruptedError || !(error instanceof CrawlError)) throw error;
      failure = error;
    }
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
        // null: the check failed, so whether the service accepts the key is not known.
        accepted: failure ? null : accepted,
        httpStatus: result?.status ?? failure?.httpStatus ?? null,
      }),
    );
  } else if (deps.io.stdoutIsTTY) {
    const style = await deps.style();
    const verdict = failure
      ? style.yellow('? not checked: the check failed (below)')
      : !key
        ? style.red(`no key: run \`${crawlCommand(deps, ['auth', 'login'])}\``)
        : accepted
          ? style.green('✓ the service accepts this key')
          : style.red(`✗ the service rejects this key (HTTP ${result?.status})`);
    await printFields(deps.io, [
      ['Profile', profile],
      ['Base URL', `${baseHref} (from ${describeSource(base.source, 'base-url')})`],
      ['Key', key ? `${maskKey(key.value)} (from ${describeSource(key.source, 'api-key')})` : 'none'],
      ['Status', verdict],
    ]);
  } else if (!failure) {
    // In a pipe a failed check prints nothing a script could take for a verdict: only the error.
    await printFields(deps.io, [
      ['profile', profile],
      ['base-url', baseHref],
      ['base-url-source', base.source],
      ['api-key', key ? maskKey(key.value) : ''],
      ['api-key-source', key?.source ?? ''],
      ['accepted', String(accepted)],
    ]);
  }
  if (failure) throw new CrawlError(`cannot check the key with the service: ${failure.message}`, failure.exitCode, {
    ...(failure.httpStatus === undefined ? {} : { httpStatus: failure.httpStatus }),
    ...(failure.hint === undefined ? {} : { hint: failure.hint }),
    cause: failure,
  });
  return accepted ? ExitCode.ok : ExitCode.auth;
}
