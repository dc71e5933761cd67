import { readJobHistory, recordJob } from '../../config/job-history.js';
import type { Deps } from '../../deps.js';

/** The service's origin, as the history keys it; undefined when no base URL is configured. */
function origin(deps: Deps): string | undefined {
  try {
    return new URL(deps.settings.requireBaseUrl().value).origin;
  } catch {
    return undefined;
  }
}

/** A job the service has just shown: offered first by `crawl job <Tab>` from now on. */
export function rememberJob(deps: Deps, id: string): void {
  const from = origin(deps);
  if (from !== undefined) recordJob(deps.env, deps.platform, id, from);
}

/** The ids looked at lately on this service, the most recent first. */
export function recentJobs(deps: Deps): string[] {
  const from = origin(deps);
  return readJobHistory(deps.env, deps.platform).filter((e) => from === undefined || e.origin === from).map((e) => e.id);
}
