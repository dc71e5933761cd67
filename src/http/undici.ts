import type { Dispatcher, EnvHttpProxyAgent } from 'undici';

export interface UndiciParts {
  EnvHttpProxyAgent: typeof EnvHttpProxyAgent;
  request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
}

let parts: Promise<UndiciParts> | undefined;

/**
 * The two parts of undici the HTTP layer uses: the keep-alive agent that honours the proxy
 * variables, and `request`. undici's index also loads fetch, WebSocket, caches, mocks and
 * Node's own bundled copy of undici: about 110 modules against these 35, most of the start-up
 * time of a command that makes one request (the bundler then inlines just these). undici 7
 * has no "exports" map, so the files are reachable; the lockfile pins the version and the
 * tests cover every request path.
 */
export function loadUndici(): Promise<UndiciParts> {
  parts ??= (async () => {
    // undici compiles its HTTP parser to WebAssembly; after a few hundred responses V8 would
    // recompile it with TurboFan, whose scratch memory (~35 MB on a worker thread's malloc arena)
    // is never given back, and whose background work keeps a finished process alive for
    // 100 ms or more. Liftoff's code is plenty for a parser that skips bodies by Content-Length.
    // bin/crawl.js has normally set it already, before compiling anything (load-bundle.cts);
    // setting it again changes nothing.
    const { setFlagsFromString } = await import('node:v8');
    setFlagsFromString('--liftoff-only');
    const [agent, api, dispatcher] = await Promise.all([
      import('undici/lib/dispatcher/env-http-proxy-agent.js'),
      import('undici/lib/api/index.js'),
      import('undici/lib/dispatcher/dispatcher.js'),
    ]);
    // What undici's index does: the request API (and `connect`, which its ProxyAgent needs for
    // tunnels) lives on every dispatcher's prototype.
    Object.assign(dispatcher.default.prototype, api.default);
    return { EnvHttpProxyAgent: agent.default, request: api.default.request };
  })();
  return parts;
}
