// The client's async factory: a profile's key read from its store, as the CLI reads it. A key
// behind a key command needs no daemon, so it runs here; the keyring's own are in test/process/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, InterruptedError, openClient, UsageError } from '../../src/client/index.js';
import { startSandbox, type EmbeddedSandbox } from '../../src/sandbox/public.js';
import { tempDir, waitFor } from '../support/harness.js';

let sb: EmbeddedSandbox;
const tmp = tempDir();
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb.close();
  tmp.cleanup();
});

function commandProfile(keyFile: string): string {
  const dir = join(tmp.dir, `cfg-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { 'base-url': sb.baseUrl, 'key-store': 'command', 'key-command': `cat ${keyFile}` } } }), { mode: 0o600 });
  return dir;
}

describe('openClient', () => {
  it('reads the key through the profile key-command, then works as createClient does', async () => {
    const keyFile = join(tmp.dir, 'key');
    writeFileSync(keyFile, sb.bootstrapKey + '\n');
    const env = { CRAWL_CONFIG_DIR: commandProfile(keyFile), PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const client = await openClient({ env });
    try {
      expect((await client.jobs.get('demo-small')).id).toBe('demo-small');
    } finally {
      await client.close();
    }
  });

  it('an abort (given aborted, or while the key command runs) rejects with the InterruptedError every call gives', async () => {
    const keyFile = join(tmp.dir, 'key-abort');
    writeFileSync(keyFile, sb.bootstrapKey + '\n');
    const env = { CRAWL_CONFIG_DIR: commandProfile(keyFile), PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const given = await openClient({ env, signal: AbortSignal.abort() }).then(() => undefined, (e: unknown) => e);
    expect(given).toBeInstanceOf(InterruptedError);
    expect((given as InterruptedError).exitCode).toBe(130);
    // A key command that waits on a FIFO nobody writes: it is running when the abort comes.
    const fifo = join(tmp.dir, 'never-written');
    execFileSync('mkfifo', [fifo]);
    const slow = join(tmp.dir, `cfg-slow`);
    mkdirSync(slow, { mode: 0o700 });
    writeFileSync(join(slow, 'config.json'), JSON.stringify({ profiles: { default: { 'base-url': sb.baseUrl, 'key-store': 'command', 'key-command': `cat ${fifo}` } } }), { mode: 0o600 });
    const controller = new AbortController();
    const opening = openClient({ env: { CRAWL_CONFIG_DIR: slow, PATH: process.env.PATH ?? '/usr/bin:/bin' }, signal: controller.signal }).then(() => undefined, (e: unknown) => e);
    // The FIFO opens for writing only once the command's `cat` has it open for reading.
    let writer: number | undefined;
    await waitFor(() => {
      try {
        writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
        return true;
      } catch {
        return false;
      }
    }, 10_000, 'the key command to open the FIFO');
    controller.abort();
    try {
      expect(await opening).toBeInstanceOf(InterruptedError);
    } finally {
      if (writer !== undefined) closeSync(writer);
    }
  });

  it('createClient refuses such a profile at its first request, naming openClient', async () => {
    const keyFile = join(tmp.dir, 'key2');
    writeFileSync(keyFile, sb.bootstrapKey + '\n');
    const client = createClient({ env: { CRAWL_CONFIG_DIR: commandProfile(keyFile) } });
    try {
      const error = await client.jobs.get('demo-small').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).hint).toContain('openClient');
    } finally {
      await client.close();
    }
  });
});
