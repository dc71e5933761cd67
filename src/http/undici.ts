import { createRequire } from 'node:module';
import type { Dispatcher, EnvHttpProxyAgent } from 'undici';

export interface UndiciParts {
  EnvHttpProxyAgent: typeof EnvHttpProxyAgent;
  request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
}

let parts: UndiciParts | undefined;

/**
 * The two parts of undici the HTTP layer uses: the keep-alive agent that honours the proxy
 * variables, and `request`. undici's index also loads fetch, WebSocket, caches, mocks and
 * Node's own bundled copy of undici: about 110 modules against these 30, most of the start-up
 * time of a command that makes one request. undici 7 has no "exports" map, so these files are
 * reachable; the version is pinned by the lockfile and the tests cover every request path.
 */
export function loadUndici(): UndiciParts {
  if (!parts) {
    const load = createRequire(import.meta.url);
    // undici compiles its HTTP parser to WebAssembly; after a few hundred responses V8 would
    // recompile it with TurboFan, whose scratch memory (~35 MB on a worker thread's malloc arena)
    // is never given back, and whose background work keeps a finished process alive for
    // 100 ms or more. Liftoff's code is plenty for a parser that skips bodies by Content-Length.
    load('node:v8').setFlagsFromString('--liftoff-only');
    parts = {
      EnvHttpProxyAgent: load('undici/lib/dispatcher/env-http-proxy-agent.js') as UndiciParts['EnvHttpProxyAgent'],
      request: load('undici/lib/api/api-request.js') as UndiciParts['request'],
    };
  }
  return parts;
}
