import type { Env } from '../platform/env.js';

/**
 * The proxy settings, from the environment a run or a client was given, not the process's own:
 * undici reads process.env for any it is not given, so each is given, empty when unset.
 */
export function proxyFromEnv(env: Env): { httpProxy: string; httpsProxy: string; noProxy: string } {
  const pick = (lower: string, upper: string): string => env[lower] || env[upper] || '';
  return { httpProxy: pick('http_proxy', 'HTTP_PROXY'), httpsProxy: pick('https_proxy', 'HTTPS_PROXY'), noProxy: pick('no_proxy', 'NO_PROXY') };
}
