// What the tests of settings, the config commands and the auth commands share: config folders of
// a test file's own, an environment holding only what a test names, and a base URL no server is on.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { runCli, tempDir } from './harness.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { sandboxFixture, type SandboxFixture } from './sandbox.js';

export type Profiles = Record<string, { 'base-url'?: string; 'api-key'?: string }>;

export interface ConfigFolders {
  /** A new empty folder. */
  fresh(): string;
  /** A new folder whose config.json (0600) holds `profiles`. */
  with(profiles: Profiles): string;
  /** A new folder (mode `mode`, 0700 by default) whose config.json (0600) holds `doc`, any JSON or text. */
  holding(doc: unknown, mode?: number): { dir: string; file: string };
  /** The config.json of `dir`, parsed. */
  read(dir: string): { profiles: Profiles };
  /** Removes every folder made. */
  cleanup(): void;
}

export function configFolders(prefix = 'crawl-settings-'): ConfigFolders {
  const made: Array<() => void> = [];
  const fresh = (): string => {
    const { dir, cleanup } = tempDir(prefix);
    made.push(cleanup);
    return dir;
  };
  return {
    fresh,
    with(profiles) {
      const dir = fresh();
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
      return dir;
    },
    holding: (doc, mode) => folderWith(fresh(), doc, mode),
    read: (dir) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')),
    cleanup: () => made.splice(0).forEach((cleanup) => cleanup()),
  };
}

/**
 * A test file's sandbox and config folders: the sandbox started before its tests, both cleaned up
 * after them. `fx` is there from the first test on.
 */
export function settingsSuite(): { readonly fx: SandboxFixture; folders: ConfigFolders } {
  const folders = configFolders();
  let fx: SandboxFixture | undefined;
  beforeAll(async () => {
    fx = await sandboxFixture();
  });
  afterAll(async () => {
    folders.cleanup();
    await fx?.close();
  });
  return {
    get fx(): SandboxFixture {
      if (fx === undefined) throw new Error('the sandbox starts in beforeAll: use suite.fx inside a test or hook');
      return fx;
    },
    folders,
  };
}

/** Only what a test names: no CRAWL_* (or XDG_CONFIG_HOME) from the fixture unless given. */
export function envOf(vars: Record<string, string | undefined>): Record<string, string | undefined> {
  return { CRAWL_BASE_URL: undefined, CRAWL_API_KEY: undefined, CRAWL_PROFILE: undefined, XDG_CONFIG_HOME: undefined, ...vars };
}

/** A base URL on 127.0.0.1 whose port nothing listens on: a request to it fails at once (exit 5). */
export async function deadBaseUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}/`;
}

/** A key shaped like the service's that no service accepts. */
export const BAD_KEY = 'crk_' + 'x'.repeat(40);

let made = 0;
/** A new folder `root/cfg-N` (mode `mode`, 0700 by default) holding `doc` as config.json (0600). */
export function folderWith(root: string, doc: unknown, mode = 0o700): { dir: string; file: string } {
  const dir = join(root, `cfg-${++made}`);
  mkdirSync(dir);
  chmodSync(dir, mode);
  const file = join(dir, 'config.json');
  writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc), { mode: 0o600 });
  chmodSync(file, 0o600);
  return { dir, file };
}

/** `crawl auth status --json` with only `env`, its document parsed. */
export async function authStatus(args: string[], env: Record<string, string | undefined>) {
  const r = await runCli(['auth', 'status', '--json', ...args], { env });
  return { ...r, json: r.stdout ? (JSON.parse(r.stdout) as Record<string, unknown>) : undefined };
}

/**
 * A config of five profiles, for the hints and errors that name one: "default" and "ci" hold
 * `sandbox` and its working key, "nokey" only the base URL, "stale" a key the sandbox has revoked,
 * "nourl" nothing. In a new folder under `root`.
 */
export async function fiveProfiles(sandbox: Sandbox, root: string): Promise<{ dir: string; file: string }> {
  const gone = sandbox.addKey('gone');
  const res = await fetch(`${sandbox.url}/api/keys/${gone.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${sandbox.key}` } });
  if (res.status !== 200) throw new Error(`revoking the stale profile's key: HTTP ${res.status}`);
  return folderWith(root, {
    profiles: {
      default: { 'base-url': sandbox.url, 'api-key': sandbox.key },
      ci: { 'base-url': sandbox.url, 'api-key': sandbox.key },
      nokey: { 'base-url': sandbox.url },
      stale: { 'base-url': sandbox.url, 'api-key': gone.key },
      nourl: {},
    },
  });
}
