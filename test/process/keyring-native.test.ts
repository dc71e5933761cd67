// The keyring code macOS and Windows run (the native binding, @napi-rs/keyring), run here on Linux
// with the platform injected: the binding's Linux build, pinned to the Secret Service, against a
// private GNOME Keyring on each bus. The binding reads its bus from the process's own environment,
// so it runs in a child process whose environment names the private bus alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../support/spawn.js';
import { BUS_KINDS, KEYRING_TOOLS, keyringTools, startKeyringSession, type KeyringSession } from '../support/keyring-session.js';
import { needs } from '../support/tools.js';

const ENTRY = `
import { KeyringStore } from ${JSON.stringify(join(ROOT, 'src/config/key-stores/keyring-store.ts'))};
import { realClock } from ${JSON.stringify(join(ROOT, 'src/platform/clock.ts'))};
const key = (await new Promise((resolve) => { let t = ''; process.stdin.on('data', (d) => (t += d)); process.stdin.on('end', () => resolve(t)); })).trim();
const entry = { service: 'crawl:https://native.example', account: 'default:0123456789ab' };
const store = (platform) => new KeyringStore(entry, 'crawl test', {
  env: process.env, platform, uid: process.getuid(), bounds: { callMs: 10000, unlockMs: 10000, commandMs: 10000 },
  clock: realClock, interactive: () => false, notice() {}, command: (w) => ['crawl', ...w].join(' '),
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

// The same code, interactive, with the login collection locked and a prompter that never answers:
// the binding waits on the unlock, as the Keychain waits on its password dialog.
const WAITING = `
import { KeyringStore } from ${JSON.stringify(join(ROOT, 'src/config/key-stores/keyring-store.ts'))};
import { realClock } from ${JSON.stringify(join(ROOT, 'src/platform/clock.ts'))};
const entry = { service: 'crawl:https://native.example', account: 'default:0123456789ab' };
const notices = [];
const store = new KeyringStore(entry, 'crawl test', {
  env: process.env, platform: process.argv[2], uid: process.getuid(), bounds: { callMs: 10000, unlockMs: 3000, commandMs: 10000 },
  clock: realClock, interactive: () => true, notice: (line) => notices.push(line), command: (w) => ['crawl', ...w].join(' '),
});
const out = await store.read(AbortSignal.timeout(20000)).then(() => ({ read: true }), (error) => ({ message: error.message, hint: error.hint }));
// The binding's call may go on waiting for its prompt: the answer is printed, and the test ends the process.
process.stdout.write(JSON.stringify({ ...out, notices }) + '\\n');
`;

let script: string;
let waiting: string;
beforeAll(async () => {
  const dir = join(ROOT, '.vitest-tmp', 'keyring-native');
  mkdirSync(dir, { recursive: true });
  script = await bundled(ENTRY, join(dir, 'entry.mjs'));
  waiting = await bundled(WAITING, join(dir, 'waiting.mjs'));
});

/** A script of the sources above, bundled into `outfile` as one ES module (the binding left to Node). */
async function bundled(contents: string, outfile: string): Promise<string> {
  await build({
    stdin: { contents, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    external: ['@napi-rs/keyring'],
    banner: { js: "import { createRequire as requireFrom } from 'node:module'; const require = requireFrom(import.meta.url);" },
    logLevel: 'warning',
  });
  return outfile;
}

function runAs(on: KeyringSession, platform: string, key: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [script, platform], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...on.env }, cwd: ROOT, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
    child.stdin?.end(key);
  });
}

for (const bus of BUS_KINDS) {
  describe(`the native keyring binding (the macOS and Windows path), on ${bus}`, needs(...keyringTools(bus)), () => {
    let session: KeyringSession | undefined;
    beforeAll(async () => {
      session = await startKeyringSession({ bus });
    });
    // Under CRAWL_TEST_TOOLS=required without the bus's tools, the session never started.
    afterAll(() => session?.close());

    for (const platform of ['darwin', 'win32']) {
      it(`as ${platform}: writes, reads back and erases through the binding, and agrees with the Secret Service code`, async () => {
        const result = await runAs(session as KeyringSession, platform, `crk_native_${platform}_0123456789abcdef`);
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
}

describe('a keystore that waits for a person (the Keychain\'s password dialog)', needs(...KEYRING_TOOLS), () => {
  it('macOS: says on the terminal that a dialog may be waiting; the bounded wait ends in an error whose hint names `security unlock-keychain`', async () => {
    // A session of its own: it is left locked, with a prompter that never answers.
    const own = await startKeyringSession();
    try {
      // The entry is there (written as the other tests do), in a collection then locked.
      await runAs(own, 'darwin', 'crk_native_waiting_0123456789abcdef');
      await own.lock();
      await own.silentPrompter();
      const result = await answerOf(own);
      expect(result.notices).toEqual(['waiting for the system keyring (macOS Keychain): if it shows a dialog, answer it there (waiting up to 3 s; Ctrl-C stops)']);
      expect(result.message).toBe('the system keyring (macOS Keychain) did not answer within 3 s');
      expect(result.hint).toMatch(/^unlock the Keychain from this shell first \(over SSH too\): `security unlock-keychain`; or set CRAWL_API_KEY for this shell/);
    } finally {
      await own.close();
    }
  });
});

/** The WAITING script's answer as macOS; the process is then ended (the binding may hold it on its prompt). */
function answerOf(on: KeyringSession): Promise<Record<string, unknown>> {
  return new Promise<Record<string, unknown>>((resolve, reject) => {
    const child = spawn(process.execPath, [waiting, 'darwin'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...on.env }, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('\n')) return;
      // The answer is in: the binding may still hold the process on its prompt.
      child.kill('SIGKILL');
      resolve(JSON.parse(out.split('\n')[0] ?? '') as Record<string, unknown>);
    });
    child.on('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`exited ${code} without an answer: ${err}`));
    });
  });
}
