import type { Context } from '../../cli/context.js';
import { ExitCode } from '../../exit-codes.js';

/** The raw key in use, for scripts (`curl -H "Authorization: Bearer $(crawl auth token)"`). */
export async function handler(ctx: Context): Promise<number> {
  const key = ctx.settings.requireApiKey();
  ctx.io.stdout.write(key.value + '\n');
  return ExitCode.ok;
}
