// What the run's factory (factory.ts) needs of the HTTP layer to make a client: one module, loaded
// with the first client, so that a command that sends nothing (config, completion) loads none of it.
export { HttpClient } from '../http/client.js';
export { ENV_KEY_UNAUTHORIZED_HINT } from '../http/errors.js';
export { proxyFromEnv } from '../http/proxy-env.js';
export { parseBaseUrl } from '../http/url.js';
