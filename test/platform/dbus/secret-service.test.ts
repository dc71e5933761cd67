// The Secret Service client against a service the test plays (test/support/secret-service-peer.ts)
// on a real private bus, each bus implementation in turn: secrets cross as ciphertext, in plain
// only when the service refuses the encrypted session (said once for --verbose), and what the
// service sends is refused when it is out of shape. A prompt's wait ends as soon as the service
// leaves the bus, however it leaves.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SecretService, SecretServiceStopped } from '../../../src/platform/dbus/secret-service.js';
import { DBusConnection, DBusError } from '../../../src/platform/dbus/connection.js';
import type { DBusValue, Message } from '../../../src/platform/dbus/wire.js';
import { describeEachBus, startKeyringSession, type KeyringSession } from '../../support/keyring-session.js';
import { secretServicePeer, ServiceSession, type Answer, type Peer } from '../../support/secret-service-peer.js';

const DH = 'dh-ietf1024-sha256-aes128-cbc-pkcs7';
const KEY = 'crk_0123456789abcdefSECRET';
const ITEM = '/org/freedesktop/secrets/collection/login/1';
const COLLECTION = '/org/freedesktop/secrets/collection/login';

describeEachBus('the Secret Service client, on %s', { keyring: false }, (bus) => {
  let session: KeyringSession;
  let peer: Peer | undefined;
  let ss: SecretService | undefined;
  beforeAll(async () => {
    session = await startKeyringSession({ keyring: false, bus });
  });
  afterEach(() => {
    ss?.close();
    peer?.close();
    ss = undefined;
    peer = undefined;
  });
  afterAll(() => session?.close());

  const signal = (): AbortSignal => AbortSignal.timeout(10_000);

  async function client(verbose?: (line: string) => void): Promise<SecretService> {
    ss = await SecretService.open({ DBUS_SESSION_BUS_ADDRESS: session.address }, process.getuid?.() ?? 0, signal(), verbose);
    return ss;
  }

  /** A service with an encrypted session; `getSecret` makes GetSecret's answer from the session. */
  async function encryptedService(getSecret: (s: ServiceSession, m: Message) => Answer, stored: Buffer[] = []): Promise<ServiceSession> {
    const crypto = new ServiceSession();
    peer = await secretServicePeer(session.address, (m) => {
      if (m.member === 'OpenSession') return m.body[0] === DH ? { signature: 'vo', body: [crypto.open((m.body[1] as [string, Buffer])[1]), '/s/1'] } : { error: 'org.freedesktop.DBus.Error.Failed' };
      if (m.member === 'GetSecret') return getSecret(crypto, m);
      if (m.member === 'CreateItem') {
        const [, iv, value, type] = m.body[1] as [string, Buffer, Buffer, string];
        stored.push(crypto.decrypt(iv, value), Buffer.from(type), iv, value);
        return { signature: 'oo', body: [ITEM, '/'] };
      }
      return { error: 'org.freedesktop.DBus.Error.UnknownMethod' };
    });
    return crypto;
  }

  it('an encrypted session: the service gets ciphertext under a fresh IV, text/plain, and what it sends back decrypts', async () => {
    const stored: Buffer[] = [];
    await encryptedService((crypto) => {
      const iv = Buffer.alloc(16, 7);
      return { signature: '(oayays)', body: [['/s/1', iv, crypto.encrypt(Buffer.from(KEY), iv), 'text/plain']] };
    }, stored);
    const verbose: string[] = [];
    const s = await client((line) => verbose.push(line));
    await s.store(COLLECTION, 'label', { service: 'crawl:x' }, KEY, signal());
    const [plaintext, type, iv, value] = stored;
    expect(plaintext?.toString()).toBe(KEY);
    expect(type?.toString()).toBe('text/plain');
    expect(iv?.length).toBe(16);
    expect(value?.toString('latin1')).not.toContain(KEY);
    await s.store(COLLECTION, 'label', { service: 'crawl:x' }, KEY, signal());
    expect(stored[6]).not.toEqual(iv);
    expect(await s.read(ITEM, signal())).toBe(KEY);
    expect(verbose).toEqual([]);
    // One session for all of it, asked for with the encrypted algorithm only.
    expect(peer?.calls.filter((m) => m.member === 'OpenSession').map((m) => m.body[0])).toEqual([DH]);
  });

  it('a service that refuses the encrypted session (NotSupported): the secret goes in plain, and --verbose hears so once', async () => {
    const stored: DBusValue[] = [];
    peer = await secretServicePeer(session.address, (m) => {
      if (m.member === 'OpenSession') {
        if (m.body[0] !== 'plain') return { error: 'org.freedesktop.DBus.Error.NotSupported', text: 'Algorithm not supported' };
        return { signature: 'vo', body: [['s', ''], '/s/plain'] };
      }
      if (m.member === 'CreateItem') {
        stored.push(m.body[1] as DBusValue);
        return { signature: 'oo', body: [ITEM, '/'] };
      }
      if (m.member === 'GetSecret') return { signature: '(oayays)', body: [['/s/plain', Buffer.alloc(0), Buffer.from(KEY), 'text/plain']] };
      return { error: 'org.freedesktop.DBus.Error.UnknownMethod' };
    });
    const verbose: string[] = [];
    const s = await client((line) => verbose.push(line));
    await s.store(COLLECTION, 'label', { service: 'crawl:x' }, KEY, signal());
    expect(await s.read(ITEM, signal())).toBe(KEY);
    expect(stored).toEqual([['/s/plain', Buffer.alloc(0), Buffer.from(KEY), 'text/plain']]);
    expect(verbose).toEqual([`the Secret Service does not support the encrypted session (${DH}): secrets cross the session bus in plain`]);
  });

  it('another refusal of the encrypted session is an error, not a plain session', async () => {
    peer = await secretServicePeer(session.address, (m) => (m.member === 'OpenSession' ? { error: 'org.freedesktop.DBus.Error.Failed', text: 'no' } : { error: 'org.freedesktop.DBus.Error.UnknownMethod' }));
    const s = await client();
    await expect(s.read(ITEM, signal())).rejects.toMatchObject({ dbusName: 'org.freedesktop.DBus.Error.Failed' });
    expect(peer.calls.map((m) => m.body[0])).toEqual([DH]);
  });

  describe('a hostile service: every malformed answer is a one-line error that holds no secret', () => {
    const iv = Buffer.alloc(16, 3);
    const cases: [string, (crypto: ServiceSession) => Answer, RegExp][] = [
      ['an IV of 15 bytes', (c) => ({ signature: '(oayays)', body: [['/s/1', iv.subarray(0, 15), c.encrypt(Buffer.from(KEY), iv), 'text/plain']] }), /an IV of 15 bytes/],
      ['a ciphertext cut short', (c) => ({ signature: '(oayays)', body: [['/s/1', iv, c.encrypt(Buffer.from(KEY), iv).subarray(0, 17), 'text/plain']] }), /encrypted secret of 17 bytes/],
      ['no ciphertext', () => ({ signature: '(oayays)', body: [['/s/1', iv, Buffer.alloc(0), 'text/plain']] }), /encrypted secret of 0 bytes/],
      // The key in the plaintext, then a final byte that is no PKCS#7 padding.
      ['bad padding', (c) => ({ signature: '(oayays)', body: [['/s/1', iv, c.encryptRaw(Buffer.from(`${KEY}\0\0\0\0\0\0`), iv), 'text/plain']] }), /does not decrypt with the session key \(bad padding\)/],
      ['a secret that is text, not bytes', () => ({ signature: '(oayss)', body: [['/s/1', iv, KEY, 'text/plain']] }), /a secret that is not bytes/],
      ['no struct at all', () => ({ signature: 's', body: [KEY] }), /a secret that is not bytes/],
    ];
    for (const [name, answer, message] of cases) {
      it(name, async () => {
        await encryptedService((crypto) => answer(crypto));
        const s = await client();
        const error = await s.read(ITEM, signal()).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(DBusError);
        expect(error).toMatchObject({ dbusName: 'crawl.Protocol' });
        expect((error as Error).message).toMatch(message);
        expect((error as Error).message).not.toMatch(/crk_|\n/);
      });
    }

    const sessions: [string, DBusValue, RegExp][] = [
      ['a public key that is text', ['s', 'hello'], /without a public key/],
      ['a public key of 129 bytes', ['ay', Buffer.alloc(129, 1)], /public key of 129 bytes/],
      ['a public key of 1', ['ay', Buffer.from([1])], /outside its group/],
    ];
    for (const [name, output, message] of sessions) {
      it(`OpenSession answered with ${name}: refused before any secret is asked for in that session`, async () => {
        peer = await secretServicePeer(session.address, (m) => (m.member === 'OpenSession' ? { signature: 'vo', body: [output, '/s/1'] } : { error: 'org.freedesktop.DBus.Error.UnknownMethod' }));
        const s = await client();
        await expect(s.read(ITEM, signal())).rejects.toThrow(message);
        await expect(s.store(COLLECTION, 'label', { service: 'crawl:x' }, KEY, signal())).rejects.toThrow(message);
        expect(peer.calls.map((m) => m.member)).toEqual(['OpenSession']);
      });
    }
  });

  describe('an unlock prompt, while the service leaves the bus', () => {
    const PROMPT = '/org/freedesktop/secrets/prompt/p1';

    /** A service whose Unlock needs a prompt; `onPrompt` runs once the prompt is shown. */
    async function promptingService(onPrompt: (peer: Peer, m: Message) => Answer, onUnlock?: (peer: Peer) => void): Promise<Peer> {
      const p = await secretServicePeer(session.address, (m, self) => {
        if (m.member === 'Unlock') {
          queueMicrotask(() => onUnlock?.(self));
          return { signature: 'aoo', body: [[], PROMPT] };
        }
        if (m.member === 'Prompt') return onPrompt(self, m);
        if (m.member === 'Dismiss') return {};
        return { error: 'org.freedesktop.DBus.Error.UnknownMethod' };
      });
      peer = p;
      return p;
    }

    it('the service gives up its name while the prompt waits: the wait ends at once, SecretServiceStopped', async () => {
      await promptingService((self, m) => {
        self.conn.reply(m);
        // Its answer may come after the test has closed this connection.
        self.releaseName().catch(() => undefined);
        return undefined;
      });
      const s = await client();
      // No bound here: without the watch on the name this wait never ends, and the test times out.
      await expect(s.unlock([COLLECTION], new AbortController().signal)).rejects.toBeInstanceOf(SecretServiceStopped);
    });

    it('the service is gone before crawl could watch its name (it answered Unlock, then disconnected): SecretServiceStopped', async () => {
      await promptingService(
        () => undefined,
        (self) => self.close(),
      );
      const s = await client();
      await expect(s.unlock([COLLECTION], new AbortController().signal)).rejects.toBeInstanceOf(SecretServiceStopped);
    });

    it('the service disconnects with the prompt call unanswered (the bus answers it NoReply): SecretServiceStopped', async () => {
      await promptingService((self) => {
        queueMicrotask(() => self.close());
        return undefined;
      });
      const s = await client();
      await expect(s.unlock([COLLECTION], new AbortController().signal)).rejects.toBeInstanceOf(SecretServiceStopped);
    });

    it('the service disconnects with Unlock itself unanswered: SecretServiceStopped, not the bus\'s NoReply', async () => {
      peer = await secretServicePeer(session.address, (m, self) => {
        if (m.member === 'Unlock') queueMicrotask(() => self.close());
        return undefined;
      });
      const s = await client();
      await expect(s.unlock([COLLECTION], new AbortController().signal)).rejects.toBeInstanceOf(SecretServiceStopped);
    });

    it('the service answered the search, then left the bus before crawl asked it to unlock: SecretServiceStopped, not "no Secret Service"', async () => {
      const p = await secretServicePeer(session.address, (m) => (m.member === 'SearchItems' ? { signature: 'aoao', body: [[], [ITEM]] } : { error: 'org.freedesktop.DBus.Error.UnknownMethod' }));
      peer = p;
      const s = await client();
      expect(await s.find({ service: 'crawl' }, signal())).toEqual({ path: ITEM, locked: true });
      p.close();
      // Until the bus has let the name go: Unlock then finds no one to go to (ServiceUnknown).
      const watcher = await DBusConnection.open(session.address, process.getuid?.() ?? 0, signal());
      try {
        const owned = (): Promise<boolean> =>
          watcher.call({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'NameHasOwner', signature: 's', body: ['org.freedesktop.secrets'] }, signal()).then(([has]) => has === true);
        while (await owned()) await new Promise((resolve) => setImmediate(resolve));
      } finally {
        watcher.close();
      }
      await expect(s.unlock([ITEM], signal())).rejects.toBeInstanceOf(SecretServiceStopped);
    });

    it('a NameOwnerChanged sent by another peer is not the bus: the prompt still completes', async () => {
      const forger = await DBusConnection.open(session.address, process.getuid?.() ?? 0, signal());
      try {
        await promptingService((self, m) => {
          self.conn.reply(m);
          forger.emit({ path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'NameOwnerChanged', signature: 'sss', body: ['org.freedesktop.secrets', self.conn.uniqueName, ''] });
          self.conn.emit({ path: PROMPT, interface: 'org.freedesktop.Secret.Prompt', member: 'Completed', signature: 'bv', body: [false, ['ao', [COLLECTION]]] });
          return undefined;
        });
        const s = await client();
        await expect(s.unlock([COLLECTION], signal())).resolves.toBeUndefined();
      } finally {
        forger.close();
      }
    });
  });
});
