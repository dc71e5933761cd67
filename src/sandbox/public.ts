// The package's `/sandbox` entry: the server behind `crawl sandbox`, for users' own tests, as
// stripe-mock is for Stripe's users. Real HTTP on 127.0.0.1, in memory, gone on close().
import { SandboxServer } from './server.js';
import type { Fault, JobSpec, RequestRecord, SandboxJob } from './types.js';

export type { Fault, FaultKind, JobSpec, PagesShape, RequestRecord, SandboxJob } from './types.js';
export { DEMO_JOB_IDS } from './seed.js';

export interface StartSandboxOptions {
  /** Default 0: a free port. It always listens on 127.0.0.1. */
  port?: number | undefined;
  /** Default true: the demo jobs (`demo-running`, `demo-small`, … `DEMO_JOB_IDS`). */
  seed?: boolean | undefined;
  /** Faults in place from the start (see `inject`). */
  faults?: Fault[] | undefined;
  /** The bootstrap key's value; default a random `crk_` key. */
  bootstrapKey?: string | undefined;
}

export interface EmbeddedSandbox {
  /** `http://127.0.0.1:<port>`: give it as CRAWL_BASE_URL or createClient({ baseUrl }). */
  readonly baseUrl: string;
  /** An active key named "bootstrap". */
  readonly bootstrapKey: string;
  /** A job as the service would show it; an existing id is replaced. */
  addJob(spec: JobSpec): SandboxJob;
  /**
   * Another active key (with its full value). `key` and `keyPrefix` make keys a real service could
   * hand out too; `createdAt`/`lastUsedAt` are shown by the list as given.
   */
  addKey(name: string, options?: { key?: string; keyPrefix?: string; createdAt?: string; lastUsedAt?: string | null }): { id: string; key: string; keyPrefix: string; name: string };
  /** Makes requests misbehave: latency, a status, Retry-After, a drop, a hang, a redirect. */
  inject(fault: Fault): void;
  /** Every API request received so far, in order (a copy). */
  requests(): RequestRecord[];
  /** Back to how it started: its own faults alone, no requests, the seed jobs alone, the bootstrap key alone. */
  reset(): void;
  close(): Promise<void>;
}

export async function startSandbox(options: StartSandboxOptions = {}): Promise<EmbeddedSandbox> {
  const server = await SandboxServer.launch({
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.bootstrapKey === undefined ? {} : { key: options.bootstrapKey }),
  });
  const standing = options.faults ?? [];
  try {
    for (const fault of standing) server.inject(fault);
  } catch (error) {
    // A fault refused (a typo in its kind): the caller gets no sandbox to close, so a server left
    // listening would keep its process alive.
    await server.close();
    throw error;
  }
  return {
    baseUrl: server.url,
    bootstrapKey: server.key,
    addJob: (spec) => server.addJob(spec),
    addKey: (name, keyOptions) => server.addKey(name, keyOptions),
    inject: (fault) => server.inject(fault),
    requests: () => server.requests.map((r) => ({ ...r })),
    reset() {
      server.reset();
      for (const fault of standing) server.inject(fault);
    },
    close: () => server.close(),
  };
}
