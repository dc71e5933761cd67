// The keyring code macOS and Windows run (the native binding, @napi-rs/keyring), run here on Linux
// with the platform injected: the binding's Linux build, pinned to the Secret Service, against a
// private GNOME Keyring on each bus. The binding reads its bus from the process's own environment,
// so it runs in a child process whose environment names the private bus alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../support/spawn.js';
import { BUS_KINDS, startKeyringSession, type KeyringSession } from '../support/keyring-session.js';

const ENTRY = `
import { KeyringStore } from ${JSON.stringify(join(ROOT, 'src/config/key-stores/keyring-store.ts'))};
import { realClock } from ${JSON.stringify(join(ROOT, 'src/platform/clock.ts'))};
const key = (await new Promise((resolve) => { let t = ''; process.stdin.on('data', (d) => (t += d)); process.stdin.on('end', () => resolve(t)); })).trim();
const entry = { service: 'crawl:https://native.example', account: 'default:0123456789ab' };
const store = (platform) => new KeyringStore(entry, 'crawl test', {
  env: process.env, platform, uid: process.getuid(), bounds: { callMs: 10000, unlockMs: 10000, commandMs: 10000 },
  clock: realClock, interactive: () => false, notice() {}, verbose() {}, command: (w) => ['crawl', ...w].join(' '),
});
const signal = AbortSignal.timeout(20000);
const mac = store(process.argv[2]);
const linux = store('linux');
const out = { describe: mac.describe() };
await mac.write(key, signal);
out.readBack = (await mac.read(signal)) === key;
out.seenOverDBus = (await linux.read(signal)) === key;
out.erased = await mac.erase(signal);
out.goneOverDBus = (await linux.read(signal)) === undefined;
await linux.write(key, signal);
out.writtenOverDBusReadNatively = (await mac.read(signal)) === key;
process.stdout.write(JSON.stringify(out));
`;

let script: string;
beforeAll(async () => {
  const dir = join(ROOT, '.vitest-tmp', 'keyring-native');
  mkdirSync(dir, { recursive: true });
  script = join(dir, 'entry.mjs');
  await build({
    stdin: { contents: ENTRY, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: script,
    external: ['@napi-rs/keyring'],
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
});
function runAs(session: KeyringSession, platform: string, key: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [script, platform], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...session.env }, cwd: ROOT, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
    child.stdin?.end(key);
  });
}

describe.each(BUS_KINDS)('the native keyring binding (the macOS and Windows path), on %s', (bus) => {
  let session: KeyringSession;
  beforeAll(async () => {
    session = await startKeyringSession({ bus });
  });
  afterAll(() => session.close());

  for (const platform of ['darwin', 'win32']) {
    it(`as ${platform}: writes, reads back and erases through the binding, and agrees with the Secret Service code`, async () => {
      const result = await runAs(session, platform, `crk_native_${platform}_0123456789abcdef`);
      expect(result).toEqual({
        describe: platform === 'darwin' ? 'system keyring (macOS Keychain)' : 'system keyring (Windows Credential Manager)',
        readBack: true,
        seenOverDBus: true,
        erased: true,
        goneOverDBus: true,
        writtenOverDBusReadNatively: true,
      });
    });
  }
});
