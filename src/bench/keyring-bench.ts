// What keeping the key in the system keyring costs a status read: the same command with the key
// in GNOME Keyring (a private session bus and daemon of the benchmark's own) and with the key in
// CRAWL_API_KEY, alternating. The target is a difference in milliseconds, not a ratio.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { BIN, benchEnv, median, timeProcess, type SandboxProcess } from './common.js';
import { startKeyringSession } from './keyring-session.js';

/** What keeping the key in the keyring may add to a status read, in ms. */
export const KEYRING_MAX_EXTRA_MS = 5;

export interface KeyringResult {
  keyringMs: number;
  envMs: number;
  /** The median of the paired differences. */
  overMs: number;
}

/** Undefined when this machine has no dbus-daemon or gnome-keyring-daemon to measure with. */
export async function benchKeyring(sandbox: SandboxProcess, work: string, runs: number, log: (line: string) => void, bin = BIN): Promise<KeyringResult | undefined> {
  let session;
  try {
    session = await startKeyringSession();
  } catch (error) {
    log(`keyring: not measured (${error instanceof Error ? error.message : String(error)}; Debian: apt-get install dbus-daemon gnome-keyring)`);
    return undefined;
  }
  try {
    const config = join(work, 'keyring-config');
    // The code cache in the benchmark's own folder, not the user's (src/bench/startup-bench.ts).
    const xdgCache = join(work, 'xdg-cache');
    const keyringEnv = benchEnv(work, { ...session.env, CRAWL_BASE_URL: sandbox.url, CRAWL_CONFIG_DIR: config, XDG_CACHE_HOME: xdgCache });
    execFileSync(process.execPath, [bin, 'auth', 'login', '--with-key', '--no-verify', '--store', 'keyring'], { env: keyringEnv, input: sandbox.key, stdio: ['pipe', 'ignore', 'ignore'] });
    const envOnly = benchEnv(work, { CRAWL_BASE_URL: sandbox.url, CRAWL_API_KEY: sandbox.key, CRAWL_CONFIG_DIR: join(work, 'env-config'), XDG_CACHE_HOME: xdgCache });
    const args = [bin, 'job', 'demo-small', '--json'];
    log(`keyring: ${runs} runs each of a status read with the key in the keyring and in CRAWL_API_KEY, alternating ...`);
    for (let i = 0; i < 3; i++) {
      await timeProcess(args, keyringEnv);
      await timeProcess(args, envOnly);
    }
    const k: number[] = [];
    const e: number[] = [];
    for (let i = 0; i < runs; i++) {
      k.push(await timeProcess(args, keyringEnv));
      e.push(await timeProcess(args, envOnly));
    }
    return { keyringMs: median(k), envMs: median(e), overMs: median(k.map((ms, i) => ms - (e[i] as number))) };
  } finally {
    await session.close();
  }
}
