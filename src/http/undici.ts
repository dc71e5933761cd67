// The two parts of undici the HTTP layer uses: the keep-alive agent that honours the proxy
// variables, and `request`. undici's index also loads fetch, WebSocket, caches, mocks and Node's
// own bundled copy of undici: several times the modules of these, and most of the start-up time of
// a command that makes one request (the bundler then inlines just these). undici 7 has no "exports"
// map, so the files are reachable; the lockfile pins the version and the tests cover every
// request path.
//
// Imported by the HTTP layer only when it sends its first request (client.ts): one chunk of the
// bundle, loaded once. The V8 flag its WebAssembly parser wants in a run that reads many responses
// is set by the bundle's loader (src/launch/load-bundle.cts) before anything compiles.
import type { Dispatcher as DispatcherType, EnvHttpProxyAgent as EnvHttpProxyAgentType } from 'undici';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import request from 'undici/lib/api/api-request.js';
import connect from 'undici/lib/api/api-connect.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';

export interface UndiciParts {
  EnvHttpProxyAgent: typeof EnvHttpProxyAgentType;
  request: (this: DispatcherType, options: DispatcherType.RequestOptions) => Promise<DispatcherType.ResponseData>;
}

// What undici's index does, for the two methods crawl reaches: `request`, and `connect`, which its
// ProxyAgent calls for a tunnel. Its API index would also bring stream, pipeline and upgrade,
// which nothing calls.
Object.assign(Dispatcher.prototype, { request, connect });

export const undici: UndiciParts = { EnvHttpProxyAgent, request };
