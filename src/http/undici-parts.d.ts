// Types for the two undici files the HTTP layer imports directly (see undici.ts).
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';
  const agent: typeof EnvHttpProxyAgent;
  export default agent;
}

declare module 'undici/lib/api/index.js' {
  import type { Dispatcher } from 'undici';
  const api: {
    request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
    [method: string]: unknown;
  };
  export default api;
}

declare module 'undici/lib/dispatcher/dispatcher.js' {
  const Dispatcher: { prototype: object };
  export default Dispatcher;
}
