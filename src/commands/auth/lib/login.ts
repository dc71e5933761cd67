import type { Deps } from '../../../deps.js';
import { readAllStdin } from '../../../io/prompt.js';
import { prepareKeyHome } from '../../../config/key-home.js';
import { CrawlError, UsageError } from '../../../errors.js';
import { ExitCode } from '../../../exit-codes.js';
import { CrossOriginAnswerError } from '../../../http/errors.js';
import { checkTransport, parseBaseUrl } from '../../../http/url.js';
import { endOfInputKeys } from '../../../platform/platform.js';
import { maskKey } from '../../../text/mask.js';
import { quotingFor, withFileOnStdin } from '../../../text/shell.js';
import { keyDefect } from '../../../text/keys.js';
import { describeBaseUrlChange, storeProfileKey } from '../../shared/profile-key.js';
import { crawlCommand } from '../../shared/suggest.js';
import { keyAccepted } from './check.js';
import { writeJson } from '../../../io/json.js';

/**
 * Stores a key for the profile with the base URL it belongs to, once the service (at that base
 * URL's own origin) has accepted it; `--no-verify` saves it unchecked, and says so.
 */
export interface LoginOptions {
  /** Read the key from stdin instead of prompting. */
  withKey: boolean;
  verify: boolean;
  /** --store / --insecure-storage; undefined: the keyring, or the config file where no keyring can be reached. */
  store?: 'keyring' | 'file';
}

export async function authLoginRun(deps: Deps, options: LoginOptions): Promise<number> {
  const verify = options.verify;
  // A base URL that would be refused, or a config file that cannot be read or parsed, is reported
  // before the user pastes a key for nothing.
  const baseUrl = parseBaseUrl(deps.settings.requireBaseUrl().value);
  checkTransport(baseUrl, deps.globals.allowHttp);
  deps.settings.store.read();
  const store = options.store ?? 'default';
  // So is a store that cannot take the key: a keyring that cannot be reached from here, or is
  // locked where nobody can unlock it (on a terminal it is unlocked now, before the key is typed).
  await prepareKeyHome(deps.settings, store, deps.signal);
  let key: string;
  if (options.withKey) {
    // On a terminal the read waits for the end of input, which nothing else would tell the user.
    if (deps.io.stdinIsTTY && !deps.globals.json) {
      deps.io.stderr.write(
        `Reading the key from standard input: paste it, press Enter, then ${endOfInputKeys(deps.platform)}. It shows as you type; \`${crawlCommand(deps, ['auth', 'login'])}\` alone asks for it without showing it.\n`,
      );
    }
    key = await readAllStdin(deps.io, deps.signal, { platform: deps.platform });
  } else {
    key = (await deps.prompter.secret('Paste your API key:', pipeHint(deps))).trim();
  }
  if (key === '') throw new UsageError('no key given', pipeHint(deps));
  deps.redactor.add(key);
  if (/\s/.test(key)) throw new UsageError('the key contains white space; give exactly one key');
  const defect = keyDefect(key);
  if (defect !== undefined) {
    // Named by the character, never by the key: no Authorization header can carry it.
    throw new UsageError(`the API key ${defect}; refusing to send it, and nothing was saved`);
  }
  if (verify) {
    const { accepted, status } = await keyAccepted(deps, key).catch((error: unknown) => {
      if (error instanceof CrossOriginAnswerError) {
        throw new CrawlError(`${error.message}; nothing was saved`, error.exitCode, error.httpStatus === undefined ? {} : { httpStatus: error.httpStatus });
      }
      throw error;
    });
    if (!accepted) {
      throw new CrawlError(`the service rejected the key (HTTP ${status}); nothing was saved`, ExitCode.auth, {
        httpStatus: status,
        hint: 'check that the key is complete and not revoked',
      });
    }
  }
  // Logging in again moves a plaintext key into the keyring: it is written and read back there,
  // then dropped from the file in the same rewrite that records the keyring.
  const saved = await storeProfileKey(deps, key, { withBaseUrl: true, store, interruptible: true });
  const { profile, baseUrlChange } = saved;
  const where = saved.store.describe();
  if (deps.globals.json) {
    writeJson(
      deps.io,
      JSON.stringify({
        profile,
        baseUrl: baseUrl.href,
        apiKey: maskKey(key),
        saved: true,
        keyStore: saved.store.kind,
        keyLocation: where,
        verified: verify,
        accepted: verify ? true : null,
        baseUrlChangedFrom: baseUrlChange?.from ?? null,
      }),
    );
  } else {
    deps.io.stderr.write(
      verify
        ? `Logged in to ${baseUrl.href} (profile "${profile}", key ${maskKey(key)}): the service accepts the key\n`
        : `Saved the key for ${baseUrl.href} (profile "${profile}", key ${maskKey(key)}) without checking it (--no-verify): whether the service accepts it is not known\n`,
    );
    deps.io.stderr.write(`The key is stored in the ${where}${saved.movedFrom === 'file' ? ' (moved out of the plaintext config file)' : ''}\n`);
    if (baseUrlChange) deps.io.stderr.write(`note: ${describeBaseUrlChange(baseUrlChange)}\n`);
    if (deps.env.CRAWL_API_KEY) deps.io.stderr.write('note: CRAWL_API_KEY is set and takes precedence over the stored key\n');
  }
  return ExitCode.ok;
}

function pipeHint(deps: Deps): string {
  return `pipe the key in with ${withFileOnStdin(crawlCommand(deps, ['auth', 'login', '--with-key']), 'keyfile', quotingFor(deps.platform, deps.env))}`;
}
