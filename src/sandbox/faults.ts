// Fault injection: which request gets which fault, and how each fault misbehaves on the wire.
import type { ServerResponse } from 'node:http';
import { isPlainObject, JSON_TYPE, replyHeaders, send, type Reply, type Target } from './http.js';
import type { Fault, FaultKind, SandboxClock } from './types.js';

const KINDS: readonly FaultKind[] = [
  'latency', 'status', 'retry-after', 'drop', 'drop-mid-body', 'hang', 'trickle', 'redirect',
];
const DEFAULT_LATENCY_MS = 1000;
const DEFAULT_TRICKLE_MS = 100;

/** Answers whether this rule applies to the request, counting the request if it matched. */
export type FaultRule = (method: string, target: Target) => Fault | undefined;

export interface Selection {
  /** Summed latency of every applicable latency fault. */
  delayMs: number;
  /** The first applicable fault of another kind. */
  fault: Fault | undefined;
}

export class FaultSet {
  private injected: FaultRule[] = [];
  private readonly standing: FaultRule[] = [];

  /** Throws a TypeError for a malformed fault, so a typo does not silently never match. */
  inject(fault: Fault): void {
    const problem = faultProblem(fault);
    if (problem) throw new TypeError(`Invalid fault: ${problem}`);
    this.injected.push(ruleFor(fault));
  }

  clear(): void {
    this.injected = [];
  }

  /** Rules from the command line of `crawl sandbox`: checked after injected ones, never cleared. */
  addStanding(rule: FaultRule): void {
    this.standing.push(rule);
  }

  /**
   * First applicable fault wins, except latency: it only delays normal handling, so it lets the
   * search go on. Otherwise a blanket latency would mask every fault injected after it.
   */
  select(method: string, target: Target): Selection {
    let delayMs = 0;
    for (const rule of [...this.injected, ...this.standing]) {
      const fault = rule(method, target);
      if (!fault) continue;
      if (fault.kind !== 'latency') return { delayMs, fault };
      delayMs += fault.ms ?? DEFAULT_LATENCY_MS;
    }
    return { delayMs, fault: undefined };
  }
}

export function ruleFor(fault: Fault): FaultRule {
  const matches = matcher(fault);
  let seen = 0;
  let applied = 0;
  return (method, target) => {
    if (!matches(method, target)) return undefined;
    if (fault.times !== undefined && applied >= fault.times) return undefined;
    seen += 1;
    if (seen <= (fault.skip ?? 0)) return undefined;
    applied += 1;
    return fault;
  };
}

function matcher(fault: Fault): (method: string, target: Target) => boolean {
  const method = fault.method?.toUpperCase();
  const path = fault.path;
  const pattern = path?.startsWith('^') ? new RegExp(path) : null;
  return (m, target) => {
    if (method !== undefined && m.toUpperCase() !== method) return false;
    if (path === undefined) return true;
    return pattern ? pattern.test(target.pathname + target.search) : target.pathname === path;
  };
}

/** Real time: the sandbox's default clock. */
export const realSandboxClock: SandboxClock = {
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
    }),
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    return () => clearInterval(timer);
  },
};

/** Timers owned by the server, so close() can stop latency, trickles and their sockets at once. */
export class Timers {
  private readonly cancels = new Set<() => void>();
  private stopped = false;
  private readonly clock: SandboxClock;

  constructor(clock: SandboxClock = realSandboxClock) {
    this.clock = clock;
  }

  /** Resolves true after ms, or false if the server closed first. */
  sleep(ms: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    const stop = new AbortController();
    const cancel = (): void => {
      this.cancels.delete(cancel);
      stop.abort();
    };
    this.cancels.add(cancel);
    return this.clock.sleep(ms, stop.signal).then(
      () => {
        this.cancels.delete(cancel);
        return true;
      },
      () => false,
    );
  }

  every(ms: number, tick: () => void): () => void {
    if (this.stopped) return () => {};
    const stopTicking = this.clock.every(ms, tick);
    const cancel = (): void => {
      stopTicking();
      this.cancels.delete(cancel);
    };
    this.cancels.add(cancel);
    return cancel;
  }

  /** Final: timers asked for afterwards never start, so nothing outlives close(). */
  cancelAll(): void {
    this.stopped = true;
    for (const cancel of [...this.cancels]) cancel();
  }
}

export interface FaultContext {
  res: ServerResponse;
  target: Target;
  timers: Timers;
  /** The answer the request would get without the fault. */
  realReply: () => Promise<Reply>;
}

export async function perform(fault: Fault, ctx: FaultContext): Promise<void> {
  const { res } = ctx;
  const extra = fault.headers ?? {};
  switch (fault.kind) {
    case 'status':
      send(res, {
        status: fault.status ?? 500,
        body: fault.body ?? JSON.stringify({ success: false, error: 'Injected fault' }),
        headers: { 'content-type': fault.contentType ?? 'application/json', ...extra },
      });
      return;
    case 'retry-after':
      send(res, {
        status: fault.status ?? 429,
        body: fault.body ?? JSON.stringify({ success: false, error: 'Rate limit exceeded' }),
        headers: { 'retry-after': fault.retryAfter ?? '1', ...extra },
      });
      return;
    case 'redirect':
      send(res, {
        status: fault.status ?? 302,
        body: JSON.stringify({ success: false, error: 'Redirected' }),
        headers: { location: fault.location ?? ctx.target.raw, ...extra },
      });
      return;
    case 'drop':
      res.destroy();
      return;
    case 'hang':
      // Deliberately nothing: the socket stays open until the client gives up or close() runs.
      return;
    case 'trickle': {
      res.writeHead(200, { 'content-type': JSON_TYPE, ...extra });
      res.flushHeaders();
      // Whitespace is valid before JSON, so a client cannot tell the answer will never come.
      const stop = ctx.timers.every(fault.ms ?? DEFAULT_TRICKLE_MS, () => res.write(' '));
      res.on('close', stop);
      return;
    }
    case 'drop-mid-body': {
      const reply = await ctx.realReply();
      if (res.destroyed) return;
      const body = Buffer.from(reply.body, 'utf8');
      res.writeHead(reply.status, replyHeaders(reply, body.length));
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
      return;
    }
    case 'latency':
      // select() turns latency into a delay; it never reaches here as the chosen fault.
      return;
  }
}

/** Why a value (e.g. a JSON body of POST /__sandbox/faults) is not a Fault, or null if it is. */
export function faultProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return 'must be an object';
  const v = value;
  if (typeof v.kind !== 'string' || !(KINDS as readonly string[]).includes(v.kind)) {
    return `kind must be one of ${KINDS.join(', ')}`;
  }
  for (const field of ['method', 'path', 'body', 'contentType', 'retryAfter', 'location'] as const) {
    if (v[field] !== undefined && typeof v[field] !== 'string') return `${field} must be a string`;
  }
  if (typeof v.path === 'string' && v.path.startsWith('^')) {
    try {
      new RegExp(v.path);
    } catch {
      return 'path is not a valid regular expression';
    }
  }
  for (const field of ['skip', 'times'] as const) {
    const n = v[field];
    if (n !== undefined && !(typeof n === 'number' && Number.isSafeInteger(n) && n >= 0)) {
      return `${field} must be a non-negative integer`;
    }
  }
  if (v.ms !== undefined && !(typeof v.ms === 'number' && Number.isFinite(v.ms) && v.ms >= 0)) {
    return 'ms must be a non-negative number';
  }
  if (v.kind === 'trickle' && v.ms === 0) return 'ms must be positive for trickle';
  const status = v.status;
  if (status !== undefined && !(typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599)) {
    return 'status must be an HTTP status code';
  }
  if (v.headers !== undefined) {
    if (!isPlainObject(v.headers) || !Object.values(v.headers).every((h) => typeof h === 'string')) {
      return 'headers must map names to strings';
    }
  }
  return null;
}
