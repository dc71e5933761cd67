import type { Deps } from '../../../deps.js';
import { describeSource } from '../../../config/settings.js';
import { ExitCode } from '../../../exit-codes.js';
import { parseBaseUrl } from '../../../http/url.js';
import { maskKey } from '../../../text/mask.js';
import { printFields } from '../../../io/table.js';
import { crawlCommand } from '../../shared/suggest.js';
import { keyAccepted } from './check.js';

/** Base URL, profile, where the key comes from (masked), and whether the service accepts it: exit 0 or 4. */
export type StatusOptions = Record<string, never>;

export async function showAuthStatus(deps: Deps, _options: StatusOptions): Promise<number> {
  const profile = deps.settings.profile().value;
  const base = deps.settings.requireBaseUrl();
  const baseHref = parseBaseUrl(base.value).href;
  const key = deps.settings.apiKey();
  const result = key ? await keyAccepted(deps, key.value) : undefined;
  const accepted = result?.accepted === true;
  if (deps.globals.json) {
    deps.io.stdout.write(
      JSON.stringify({
        profile,
        baseUrl: baseHref,
        baseUrlSource: base.source,
        apiKey: key ? maskKey(key.value) : null,
        apiKeySource: key?.source ?? null,
        accepted,
        httpStatus: result?.status ?? null,
      }) + '\n',
    );
  } else if (deps.io.stdoutIsTTY) {
    const style = await deps.style();
    const verdict = !key
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
  } else {
    await printFields(deps.io, [
      ['profile', profile],
      ['base-url', baseHref],
      ['base-url-source', base.source],
      ['api-key', key ? maskKey(key.value) : ''],
      ['api-key-source', key?.source ?? ''],
      ['accepted', String(accepted)],
    ]);
  }
  return accepted ? ExitCode.ok : ExitCode.auth;
}
