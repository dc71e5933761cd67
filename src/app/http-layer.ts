// What the run's factory (factory.ts) needs of the HTTP layer to make a client: one module, loaded
// with the first client, so that a command that sends nothing (config, completion) loads none of it.
export { HttpClient } from '../http/client.js';
export { ENV_KEY_UNAUTHORIZED_HINT } from '../http/errors.js';
export { proxyFromEnv } from '../http/proxy-env.js';
export { parseBaseUrl } from '../http/url.js';

// The factory reads the key before it makes the client, and a key store may wait on another
// process (the keyring's bus round trips, a key command): undici, which the first request loads,
// loads in that wait instead. Queued behind the I/O already under way (setImmediate, not a
// promise), so the store's first message is out before it starts; with the key at hand the first
// request has loaded undici by then and this finds it loaded. A failure is the request's to report.
setImmediate(() => {
  import('../http/undici.js').catch(() => undefined);
});
