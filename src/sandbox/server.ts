// The HTTP server: records each request, lets faults intercept it, then authenticates and
// routes it. Everything lives in memory and dies with close().
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleApi, notFound } from './api.js';
import { handleControl, isControlPath } from './control.js';
import { FaultSet, perform, Timers } from './faults.js';
import { failure, readBody, send, splitTarget, MAX_BODY_BYTES, type Reply, type Target } from './http.js';
import { JobStore } from './jobs.js';
import { KeyStore } from './keys.js';
import { demoJobs } from './seed.js';
import type { Fault, JobSpec, RequestLogEntry, RequestRecord, Sandbox, SandboxJob, SandboxOptions } from './types.js';

const KEEP_ALIVE_MS = 5_000;

export class SandboxServer implements Sandbox {
  readonly requests: RequestRecord[] = [];
  /** Exposed beyond the Sandbox interface for `crawl sandbox`, which adds standing faults. */
  readonly faults = new FaultSet();
  url = '';
  readonly key: string;
  private readonly jobs = new JobStore();
  private readonly keys = new KeyStore();
  private readonly timers: Timers;
  private readonly server: Server;
  private readonly log: ((entry: RequestLogEntry) => void) | undefined;
  private closing: Promise<void> | null = null;
  private readonly seed: boolean;

  private constructor(options: SandboxOptions) {
    this.log = options.log;
    this.timers = new Timers(options.clock);
    this.key = this.keys.create('bootstrap', options.key).key;
    this.seed = options.seed !== false;
    if (this.seed) for (const spec of demoJobs()) this.jobs.add(spec);
    this.server = createServer((req, res) => {
      this.onRequest(req, res).catch((error: unknown) => crashed(res, error));
    });
    this.server.keepAliveTimeout = KEEP_ALIVE_MS;
  }

  static async launch(options: SandboxOptions = {}): Promise<SandboxServer> {
    const port = options.port ?? 0;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`Invalid port: ${port}`);
    const sandbox = new SandboxServer(options);
    const { server } = sandbox;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    sandbox.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return sandbox;
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.timers.cancelAll();
      this.server.close(() => resolve());
      // close() alone waits for busy sockets; hung and trickling requests would never finish.
      this.server.closeAllConnections();
    });
    return this.closing;
  }

  addJob(spec: JobSpec): SandboxJob {
    return this.jobs.add(spec);
  }

  getJob(id: string): SandboxJob | undefined {
    return this.jobs.get(id);
  }

  /**
   * `createdAt` and `lastUsedAt` as the list will show them (any string, to try a client on odd
   * values); a request made with the key still stamps lastUsedAt with the time of that request.
   */
  addKey(
    name: string,
    options: { key?: string; keyPrefix?: string; createdAt?: string; lastUsedAt?: string | null } = {},
  ): { id: string; key: string; keyPrefix: string; name: string } {
    const entry = this.keys.create(name, options.key, options.keyPrefix);
    if (options.createdAt !== undefined) entry.createdAt = options.createdAt;
    if (options.lastUsedAt !== undefined) entry.lastUsedAt = options.lastUsedAt;
    return { id: entry.id, key: entry.key, keyPrefix: entry.keyPrefix, name };
  }

  inject(fault: Fault): void {
    this.faults.inject(fault);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  reset(): void {
    this.faults.clear();
    this.requests.length = 0;
    this.jobs.clear();
    if (this.seed) for (const spec of demoJobs()) this.jobs.add(spec);
    this.keys.clear();
    this.keys.create('bootstrap', this.key);
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const target = splitTarget(req.url ?? '/');
    const logged = this.log ? this.logWhenDone(req, res, method, target) : undefined;

    if (isControlPath(target.pathname)) {
      const body = await readBody(req);
      const ctx = { faults: this.faults, jobs: this.jobs, requests: this.requests };
      send(res, body === null ? tooLarge() : handleControl(ctx, method, target, body));
      return;
    }

    const authorization = req.headers.authorization;
    this.requests.push({
      method,
      url: target.raw,
      authorized: this.keys.check(authorization).ok,
      hadAuthorization: authorization !== undefined,
    });
    // Chosen on arrival, before the body is read, so skip/times count requests in arrival order.
    const { delayMs, fault } = this.faults.select(method, target);
    if (logged && (fault?.kind === 'drop' || fault?.kind === 'drop-mid-body')) logged.dropped = true;
    const body = await readBody(req);
    if (delayMs > 0 && !(await this.timers.sleep(delayMs))) return;

    // Faults act before authentication so they reach unauthenticated requests too; the key is
    // checked only now, after any delay, so a key revoked meanwhile is refused.
    const realReply = async (): Promise<Reply> =>
      body === null ? tooLarge() : this.serve(method, target, body, authorization);
    if (fault) await perform(fault, { res, target, timers: this.timers, realReply });
    else send(res, await realReply());
  }

  /** Logs the request once it has been answered, dropped, or given up on by the client. */
  private logWhenDone(req: IncomingMessage, res: ServerResponse, method: string, target: Target): { dropped: boolean } {
    const started = Date.now();
    const state = { dropped: false };
    const control = isControlPath(target.pathname);
    const authorization = req.headers.authorization;
    res.once('close', () => {
      const owner = control || authorization === undefined ? undefined : this.keys.owner(authorization);
      this.log?.({
        method,
        url: this.keys.redact(target.raw),
        outcome: res.writableFinished ? res.statusCode : state.dropped ? 'dropped' : 'no answer',
        ms: Date.now() - started,
        key: owner ? { name: owner.name, keyPrefix: owner.keyPrefix, revoked: owner.revoked } : control || authorization === undefined ? 'none' : 'unknown',
        control,
      });
    });
    return state;
  }

  private serve(method: string, target: Target, body: string, authorization: string | undefined): Reply {
    if (target.pathname !== '/api' && !target.pathname.startsWith('/api/')) return notFound(method, target);
    const auth = this.keys.check(authorization);
    if (!auth.ok) return failure(401, auth.error, { 'www-authenticate': 'Bearer' });
    this.keys.touch(auth.entry);
    return handleApi({ jobs: this.jobs, keys: this.keys, origin: this.url }, method, target, body);
  }
}

function tooLarge(): Reply {
  return failure(413, `Request body larger than ${MAX_BODY_BYTES} bytes`);
}

/** A bug in the sandbox must not take the test run down with it: answer 500 and carry on. */
function crashed(res: ServerResponse, error: unknown): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  send(res, failure(500, `Sandbox error: ${message}`));
}
