// A sandbox per test file (or test), and the environment that points the CLI at it.
import { afterAll, beforeAll } from 'vitest';
import { startSandbox, type RequestRecord, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { tempDir } from './harness.js';

export interface SandboxFixture {
  sandbox: Sandbox;
  configDir: string;
  /** CRAWL_BASE_URL, CRAWL_API_KEY (the bootstrap key) and a private CRAWL_CONFIG_DIR. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function sandboxFixture(options: SandboxOptions = {}): Promise<SandboxFixture> {
  const sandbox = await startSandbox(options);
  const { dir, cleanup } = tempDir();
  return {
    sandbox,
    configDir: dir,
    env: { CRAWL_BASE_URL: sandbox.url, CRAWL_API_KEY: sandbox.key, CRAWL_CONFIG_DIR: dir },
    async close() {
      await sandbox.close();
      cleanup();
    },
  };
}

/**
 * A test file's sandbox and a folder of its own for what its runs write (exports, config folders):
 * started before its tests, both removed after them. `fx` and `dir` are there from the first hook on.
 */
export function sandboxSuite(options: SandboxOptions = {}): { readonly fx: SandboxFixture; readonly dir: string } {
  let fx: SandboxFixture | undefined;
  let files: { dir: string; cleanup: () => void } | undefined;
  beforeAll(async () => {
    fx = await sandboxFixture(options);
    files = tempDir('crawl-files-');
  });
  afterAll(async () => {
    files?.cleanup();
    await fx?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the sandbox starts in beforeAll: use the suite inside a test or hook');
    return value;
  };
  return {
    get fx(): SandboxFixture {
      return started(fx);
    },
    get dir(): string {
      return started(files).dir;
    },
  };
}

/** A sandbox that only `fn` talks to, so that "no request was made" can be checked; closed after. */
export async function withOwnSandbox<T>(fn: (own: SandboxFixture) => Promise<T>): Promise<T> {
  const own = await sandboxFixture({ seed: false });
  try {
    return await fn(own);
  } finally {
    await own.close();
  }
}

/**
 * Calls `action` once, as the first request that `matches` arrives at the sandbox, before the
 * sandbox reads its body or answers it: what the CLI does after that request sees what `action`
 * did (a file put in its way while a key is being created). No wait, no polling.
 */
export function onArrival(sandbox: Sandbox, matches: (request: RequestRecord) => boolean, action: () => void): void {
  const requests = sandbox.requests;
  const push = requests.push;
  requests.push = function (...items: RequestRecord[]): number {
    const length = push.apply(this, items);
    if (items.some(matches)) {
      // Back to Array.prototype.push: once only.
      Reflect.deleteProperty(requests, 'push');
      action();
    }
    return length;
  };
}
