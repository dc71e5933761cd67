// A misbehaving service for the fault batteries: a reverse proxy in front of the sandbox that
// answers the requests a rule picks with a fault (on the wire, where the sandbox's faults stop:
// TCP resets, endless trickles, bytes that are not UTF-8, bodies past the size caps, echoes of
// the Authorization header) and forwards everything else, so each command still meets a service
// with real keys and jobs. It records every request, faulted or not, so tests can count attempts.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { listenOnLoopback } from './loopback.js';

export interface Seen {
  method: string;
  /** Raw path and query, as received. */
  url: string;
  headers: IncomingHttpHeaders;
  /** When the request arrived: Date.now(), or the `clock` option's now(). */
  at: number;
  /** Whether a rule answered it (else it was forwarded or refused). */
  faulted: boolean;
}

export type Body = string | Buffer | ((req: IncomingMessage) => string | Buffer);
/** Headers, or made per request (a Retry-After date, an echo). */
export type Headers = Record<string, string> | ((req: IncomingMessage) => Record<string, string>);

/** How a picked request misbehaves. Data, so a test table can list them. */
export type Fault =
  /** TCP RST before any byte of the response. */
  | { kind: 'reset' }
  /** Status line, headers and half of `body` (Content-Length says all of it), then a TCP RST. */
  | { kind: 'reset-mid-body'; body?: string }
  /** Reads the request and sends nothing, until the server closes. */
  | { kind: 'silent' }
  /** The headers come after `ms`, then a normal answer (a slow service, not a dead one). */
  | { kind: 'slow-headers'; ms: number; status?: number; body?: Body }
  /** Headers at once, then one byte every `ms`, for ever. */
  | { kind: 'trickle'; ms?: number }
  /** Any status, headers and body, sent at once. */
  | { kind: 'respond'; status: number; headers?: Headers; body?: Body }
  /** A chunked body of `bytes` bytes (no Content-Length), sent as fast as the socket takes it. */
  | { kind: 'flood'; bytes: number; status?: number }
  /** Bytes written straight to the socket, then the connection is closed: not HTTP, or broken HTTP. */
  | { kind: 'raw'; bytes: string }
  /** A redirect; the location may depend on the request (a loop sends it back to itself). */
  | { kind: 'redirect'; status?: number; location: string | ((req: IncomingMessage) => string) };

export interface Rule {
  /** Match this method only (default any). */
  method?: string;
  /** Matched against the raw path and query; a string matches the path exactly. */
  path?: string | RegExp;
  /** Fault only the first `times` matching requests, then forward (default: every one). */
  times?: number;
  fault: Fault;
}

export interface Hostile {
  /** "http://127.0.0.1:PORT", no trailing slash. */
  url: string;
  seen: Seen[];
  /** Requests that match, faulted or forwarded. */
  count(method: string, path: string | RegExp): number;
  close(): Promise<void>;
}

export interface HostileOptions {
  /** Where requests no rule picks go. Without it, they get a 500 naming the stray request. */
  upstream?: string;
  rules?: Rule[];
  /** Stamps `at` with this clock (a run's fake clock: when, in its virtual time, a request came). */
  clock?: { now(): number };
  /**
   * Called each time a fault starts to hold a request without ending it (silent, slow headers, a
   * trickle once its first bytes are out): the moment a test on a fake clock lets the client's
   * --timeout pass. A test that gives it means its slow headers to be slower than the --timeout.
   */
  onHold?: () => void;
}

function matches(rule: { method?: string; path?: string | RegExp }, method: string, url: string): boolean {
  if (rule.method !== undefined && rule.method.toUpperCase() !== method) return false;
  if (rule.path === undefined) return true;
  if (typeof rule.path === 'string') return url.split('?')[0] === rule.path;
  return rule.path.test(url);
}

export async function startHostile(options: HostileOptions = {}): Promise<Hostile> {
  const rules = (options.rules ?? []).map((rule) => ({ rule, used: 0 }));
  const seen: Seen[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  const later = (ms: number, fn: () => void, repeat = false): void => {
    if (closed) return;
    const timer = repeat ? setInterval(fn, ms) : setTimeout(() => (timers.delete(timer), fn()), ms);
    timers.add(timer);
  };

  const server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const picked = rules.find((r) => matches(r.rule, method, url) && (r.rule.times === undefined || r.used < r.rule.times));
    seen.push({ method, url, headers: req.headers, at: options.clock?.now() ?? Date.now(), faulted: picked !== undefined });
    if (picked) {
      picked.used++;
      // The request body is never needed; reading it keeps the connection's state simple.
      req.resume();
      misbehave(picked.rule.fault, req, res, later, options.onHold ?? (() => undefined));
    } else if (options.upstream) {
      forward(options.upstream, req, res);
    } else {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`hostile server: no rule for ${method} ${url}`);
    }
  });
  const listening = await listenOnLoopback(server);
  return {
    url: listening.url,
    seen,
    count: (method, path) => seen.filter((s) => matches({ method, path }, s.method, s.url)).length,
    close: async () => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      await listening.close();
    },
  };
}

function bodyOf(body: Body | undefined, req: IncomingMessage): Buffer {
  const value = typeof body === 'function' ? body(req) : body ?? '';
  return Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8');
}

function misbehave(fault: Fault, req: IncomingMessage, res: ServerResponse, later: (ms: number, fn: () => void, repeat?: boolean) => void, onHold: () => void): void {
  const socket = req.socket;
  switch (fault.kind) {
    case 'reset':
      socket.resetAndDestroy();
      return;
    case 'reset-mid-body': {
      const body = Buffer.from(fault.body ?? JSON.stringify({ success: true, padding: 'x'.repeat(4096) }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.write(body.subarray(0, body.length >> 1), () => later(20, () => socket.resetAndDestroy()));
      return;
    }
    case 'silent':
      onHold();
      return;
    case 'slow-headers':
      later(fault.ms, () => {
        const body = bodyOf(fault.body ?? '{"success":true}', req);
        res.writeHead(fault.status ?? 200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
      });
      onHold();
      return;
    case 'trickle': {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      // Held once a few bytes have gone out: a body still arriving does not put off the deadline.
      let sent = 0;
      const drip = (): void => {
        if (res.destroyed) return;
        res.write(' ');
        if (++sent === 2) onHold();
      };
      later(fault.ms ?? 50, drip, true);
      return;
    }
    case 'respond': {
      const body = bodyOf(fault.body, req);
      const headers = typeof fault.headers === 'function' ? fault.headers(req) : fault.headers;
      res.writeHead(fault.status, { 'content-type': 'application/json', 'content-length': body.length, ...headers }).end(body);
      return;
    }
    case 'flood': {
      res.writeHead(fault.status ?? 200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      chunk[0] = 0x7b; // '{': starts like JSON, never ends like it
      let left = fault.bytes;
      const pump = (): void => {
        while (left > 0) {
          left -= chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      // The client hangs up once it has had enough: stop pumping then.
      res.on('close', () => (left = 0));
      pump();
      return;
    }
    case 'raw':
      socket.end(fault.bytes);
      return;
    case 'redirect': {
      const location = typeof fault.location === 'function' ? fault.location(req) : fault.location;
      res.writeHead(fault.status ?? 302, { location, 'content-length': 0 }).end();
      return;
    }
  }
}

function forward(upstream: string, req: IncomingMessage, res: ServerResponse): void {
  const target = new URL(req.url ?? '/', upstream);
  const headers = { ...req.headers, host: target.host };
  const out = httpRequest(target, { method: req.method, headers, agent: false }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  out.on('error', () => res.destroy());
  req.pipe(out);
}

/** A TCP server that accepts connections, takes what is sent and never writes a byte. */
export async function startSilentTcp(
  options: { onHold?: () => void } = {},
): Promise<{ url: string; requests: () => number; firstAt: () => number | undefined; close(): Promise<void> }> {
  let requests = 0;
  let firstAt: number | undefined;
  const server = createNetServer((socket) => {
    // undici may open a spare connection after an aborted one: only a connection that carried a
    // request counts.
    socket.once('data', () => {
      requests++;
      firstAt ??= Date.now();
      options.onHold?.();
    });
    socket.on('error', () => undefined);
  });
  const listening = await listenOnLoopback(server);
  return {
    url: listening.url,
    requests: () => requests,
    firstAt: () => firstAt,
    close: async () => {
      await listening.close();
    },
  };
}

/** A base URL where nothing listens: a port that was just bound and released. */
export async function refusedUrl(): Promise<string> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export interface HostileProxy {
  /** For HTTPS_PROXY / HTTP_PROXY. */
  url: string;
  /** Every CONNECT (and any absolute-form request) it received, with its headers. */
  seen: Array<{ method: string; target: string; headers: IncomingHttpHeaders; at: number }>;
  /** Requests sent into accepted tunnels (undici may open a spare tunnel that carries none). */
  tunnelled(): number;
  close(): Promise<void>;
}

/**
 * A forward proxy that misbehaves: answers CONNECT with `status` (407 asks for credentials),
 * or accepts the tunnel and then relays nothing (`hang`).
 */
export async function startHostileProxy(behaviour: { status: number } | 'hang', options: { onHold?: () => void } = {}): Promise<HostileProxy> {
  const seen: HostileProxy['seen'] = [];
  let tunnelled = 0;
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', target: req.url ?? '', headers: req.headers, at: Date.now() });
    const status = behaviour === 'hang' ? 502 : behaviour.status;
    res.writeHead(status, { 'proxy-authenticate': 'Basic realm="corp"', 'content-length': 0 }).end();
  });
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    seen.push({ method: 'CONNECT', target: req.url ?? '', headers: req.headers, at: Date.now() });
    socket.on('error', () => undefined);
    if (behaviour === 'hang') {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      socket.once('data', () => {
        tunnelled++;
        options.onHold?.();
      });
      return;
    }
    const reason = behaviour.status === 407 ? 'Proxy Authentication Required' : 'Refused';
    socket.end(`HTTP/1.1 ${behaviour.status} ${reason}\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n`);
  });
  const listening = await listenOnLoopback(server);
  return {
    url: listening.url,
    seen,
    tunnelled: () => tunnelled,
    close: async () => {
      await listening.close();
    },
  };
}
