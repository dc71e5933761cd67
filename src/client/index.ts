// The package's programmatic entry: `import { createClient } from '@webcrawl/cli'`.
import { Settings } from '../config/settings.js';
import { realClock } from '../platform/clock.js';
import { processFacts } from '../platform/host.js';
import { CrawlError, InterruptedError } from '../errors.js';
import { makeClient } from './client.js';
import type { ClientOptions, CrawlClient } from './types.js';

export type { ClientOptions, CrawlClient } from './types.js';
export type { CancelOptions, Job, JobStatus, JobsClient, PagesOptions, WatchOptions } from './jobs.js';
export type { ApiKey, KeyRef, KeysClient, NewKey, RevokeOptions, RotateOptions, Rotation } from './keys.js';
export { RotationError, type RotationStep } from './errors.js';
export { CrawlError, InterruptedError, UsageError } from '../errors.js';
export { CrossOriginAnswerError, HttpStatusError, NetworkError, ResponseTooLargeError } from '../http/errors.js';
export { OutcomeUnknownError, UnusableKeyError } from '../api/key-errors.js';
export { ExitCode } from '../exit-codes.js';

/**
 * A client for the crawl service. Settings left out are resolved as the CLI resolves them
 * (CRAWL_BASE_URL, CRAWL_API_KEY, CRAWL_PROFILE, the config file); throws a UsageError (exit code
 * 2) when there is no base URL, and the first request rejects with one when there is no key.
 */
export function createClient(options: ClientOptions = {}): CrawlClient {
  const facts = processFacts();
  return makeClient(options, { env: options.env ?? facts.env, clock: realClock, nodeVersion: facts.nodeVersion, platform: facts.platform });
}

/**
 * A client whose key is read first from wherever the profile keeps it (the system keyring, a
 * secret manager's key-command, the config file), or from CRAWL_API_KEY, as the CLI reads it.
 * Rejects when there is no key, or when its store fails or does not answer in time.
 */
export async function openClient(options: ClientOptions = {}): Promise<CrawlClient> {
  if (options.apiKey !== undefined) return createClient(options);
  const facts = processFacts();
  const env = options.env ?? facts.env;
  const settings = new Settings(env, { ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }), ...(options.profile === undefined ? {} : { profile: options.profile }) });
  let key;
  try {
    key = await settings.requireApiKey(options.signal);
  } catch (error) {
    // An abort while the key store answers: the InterruptedError every other call of the client gives.
    if (options.signal?.aborted && !(error instanceof CrawlError)) throw new InterruptedError();
    throw error;
  }
  return createClient({ ...options, apiKey: key.value });
}
