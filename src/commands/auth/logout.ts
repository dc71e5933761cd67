import type { Context } from '../../app/factory.js';
import { ExitCode } from '../../exit-codes.js';

/** Forgets the profile's stored key (the key stays valid at the service; revoke it with `crawl keys revoke`). */
export async function handler(ctx: Context): Promise<number> {
  const profile = ctx.settings.profile().value;
  const had = ctx.settings.store.profile(profile)['api-key'] !== undefined;
  if (had) {
    await ctx.settings.store.update(profile, (p) => {
      delete p['api-key'];
    });
  }
  if (ctx.globals.json) {
    ctx.io.stdout.write(JSON.stringify({ profile, removed: had }) + '\n');
  } else {
    ctx.io.stderr.write(had ? `Removed the key of profile "${profile}"\n` : `No key was stored for profile "${profile}"\n`);
    if (ctx.env.CRAWL_API_KEY) ctx.io.stderr.write('note: CRAWL_API_KEY is still set in the environment\n');
  }
  return ExitCode.ok;
}
