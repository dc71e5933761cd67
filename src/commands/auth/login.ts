import type { Context } from '../../cli/context.js';
import { readAllStdin } from '../../cli/prompt.js';
import { CrawlError, UsageError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { checkTransport, parseBaseUrl } from '../../http/url.js';
import { maskKey } from '../../output/format.js';
import { storeProfileKey } from '../keys/profile-key.js';
import { keyAccepted } from './check.js';

/** Stores a key for the profile, but only once the service has accepted it. */
export async function handler(ctx: Context, _args: string[], opts: Record<string, unknown>): Promise<number> {
  // A base URL that would be refused, or a config file that cannot be read or parsed, is reported
  // before the user pastes a key for nothing.
  const baseUrl = parseBaseUrl(ctx.settings.requireBaseUrl().value);
  checkTransport(baseUrl, ctx.globals.allowHttp);
  ctx.settings.store.read();
  let key: string;
  if (opts.withKey === true) {
    key = await readAllStdin(ctx.io);
  } else {
    key = (await ctx.prompt.secret('Paste your API key:', 'pipe the key in with `crawl auth login --with-key < keyfile`')).trim();
  }
  if (key === '') throw new UsageError('no key given', 'pipe the key in with `crawl auth login --with-key < keyfile`');
  if (/\s/.test(key)) throw new UsageError('the key contains white space; give exactly one key');
  ctx.secrets.add(key);
  const { accepted, status } = await keyAccepted(ctx, key);
  if (!accepted) {
    throw new CrawlError(`the service rejected the key (HTTP ${status}); nothing was saved`, ExitCode.auth, {
      httpStatus: status,
      hint: 'check that the key is complete and not revoked',
    });
  }
  // Keeps the base URL the key was checked against, unless the profile already has one of its own.
  const { profile } = await storeProfileKey(ctx, key, { withBaseUrl: true });
  if (ctx.globals.json) {
    ctx.io.stdout.write(JSON.stringify({ profile, baseUrl: baseUrl.href, apiKey: maskKey(key), saved: true }) + '\n');
  } else {
    ctx.io.stderr.write(`Logged in to ${baseUrl.href} (profile "${profile}", key ${maskKey(key)})\n`);
    if (ctx.env.CRAWL_API_KEY) ctx.io.stderr.write('note: CRAWL_API_KEY is set and takes precedence over the stored key\n');
  }
  return ExitCode.ok;
}
