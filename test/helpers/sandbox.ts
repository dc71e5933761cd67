// A sandbox per test file (or test), and the environment that points the CLI at it.
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { tempDir } from './cli.js';

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
