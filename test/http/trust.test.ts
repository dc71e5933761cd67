// Which certificate authorities https:// trusts: a TLS failure from an unknown authority explains
// itself and the fix; SSL_CERT_FILE and SSL_CERT_DIR are trusted in place of the bundled ones;
// NODE_EXTRA_CA_CERTS is added; on Node 22.15 and later the operating system's store is trusted
// beside the bundled ones (on Node 20 it cannot be read, and --verbose says so). Against https
// servers on 127.0.0.1 whose certificates come from authorities this test makes with openssl.
import { createServer, type Server } from 'node:https';
import { mkdirSync } from 'node:fs';
import { connect } from 'node:tls';
import * as tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient } from '../../src/client/client.js';
import { HttpClient } from '../../src/http/client.js';
import { nodeAuthorities, secureContextFor, trustedAuthorities } from '../../src/http/trust.js';
import { crawl, tempDir } from '../support/harness.js';
import { listenOnLoopback, type OnLoopback } from '../support/loopback.js';
import { fakeClock } from '../support/fake-clock.js';
import { makeTestCertificates, type TestCertificates } from '../support/tls-certs.js';
import { needs } from '../support/tools.js';

const KEY = 'crk_' + 'TlsTestKey0123456789abcdefghij';
const JOB = JSON.stringify({ success: true, job: { id: 'tls-job', url: 'https://example.com', status: 'completed', pagesTotal: 1, pagesFinished: 1, creditsUsed: 1, createdAt: '2026-11-27T00:00:00Z' }, pages: [] });
const hasSystemStore = typeof (tls as { getCACertificates?: unknown }).getCACertificates === 'function';

let tmp: { dir: string; cleanup: () => void };
let certs: TestCertificates;
let signed: OnLoopback;
let selfSigned: OnLoopback;

function jobServer(options: { key: string; cert: string }): Server {
  return createServer(options, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JOB);
  });
}

beforeAll(async () => {
  tmp = tempDir('crawl-tls-');
  certs = makeTestCertificates(tmp.dir);
  signed = await listenOnLoopback(jobServer(certs.server));
  selfSigned = await listenOnLoopback(jobServer(certs.selfSigned));
});
afterAll(async () => {
  // Neither server started when openssl is missing (under CRAWL_TEST_TOOLS=required).
  await signed?.close();
  await selfSigned?.close();
  tmp.cleanup();
});

const httpsUrl = (server: OnLoopback): string => `https://127.0.0.1:${server.port}`;
const run = (server: OnLoopback, env: Record<string, string> = {}, extra: string[] = []) =>
  crawl(['job', 'tls-job', ...extra], { env: { CRAWL_BASE_URL: httpsUrl(server), CRAWL_API_KEY: KEY, ...env } });

describe('a certificate from an authority crawl does not trust', needs('openssl'), () => {
  it.each([
    ['signed by an unknown authority', () => signed, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', "the server's certificate comes from a certificate authority crawl does not know"],
    ['self-signed', () => selfSigned, 'DEPTH_ZERO_SELF_SIGNED_CERT', "the server's certificate is self-signed, and crawl does not trust it"],
  ])('%s: exit 5, what it means, and the fix', async (_what, server, code, meaning) => {
    const r = await run(server());
    expect(r.code).toBe(5);
    const [message = '', hint = ''] = r.stderr.trim().split('\n');
    expect(message).toBe(`crawl: TLS error (${code}): ${meaning}: GET ${httpsUrl(server())}/api/crawl/tls-job`);
    expect(hint).toMatch(/^hint: if you trust it .*NODE_EXTRA_CA_CERTS=<file> adds it; SSL_CERT_FILE=<file> or SSL_CERT_DIR=<folder> trusts those in place of the bundled ones;.*docs\/tls\.md/);
  });
});

describe('the variables that name authorities', needs('openssl'), () => {
  it.each([
    ['SSL_CERT_FILE', () => ({ SSL_CERT_FILE: certs.caCert })],
    ['SSL_CERT_DIR', () => ({ SSL_CERT_DIR: certs.caDir })],
    ['SSL_CERT_DIR with several folders', () => ({ SSL_CERT_DIR: `${emptyDir()}:${certs.caDir}` })],
    ['NODE_EXTRA_CA_CERTS', () => ({ NODE_EXTRA_CA_CERTS: certs.caCert })],
    ['SSL_CERT_FILE of another authority, and NODE_EXTRA_CA_CERTS adding this one', () => ({ SSL_CERT_FILE: certs.otherCaCert, NODE_EXTRA_CA_CERTS: certs.caCert })],
  ])('%s: the server the test authority signed is trusted', async (_what, env) => {
    const r = await run(signed, env());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('tls-job');
  });

  it('SSL_CERT_FILE replaces the rest: another authority alone does not vouch for this server', async () => {
    const r = await run(signed, { SSL_CERT_FILE: certs.otherCaCert });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('TLS error (UNABLE_TO_VERIFY_LEAF_SIGNATURE)');
    expect(trustedAuthorities({ SSL_CERT_FILE: certs.otherCaCert }, nodeAuthorities(process.versions.node)).ca).toHaveLength(1);
  });

  it.each([
    ['SSL_CERT_FILE', () => `${tmp.dir}/missing.pem`, 'cannot be read (ENOENT)'],
    ['SSL_CERT_FILE', () => `${tmp.dir}/server.key`, 'holds no PEM certificate'],
    ['SSL_CERT_DIR', () => `${tmp.dir}/missing`, 'cannot be read (ENOENT)'],
    ['NODE_EXTRA_CA_CERTS', () => `${tmp.dir}/missing.pem`, 'cannot be read (ENOENT)'],
  ])('%s naming what holds no certificate: a usage error before anything is sent', async (variable, path, says) => {
    const r = await run(signed, { [variable]: String(path()) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`crawl: ${variable} names ${String(path())}, which ${says}`);
  });
});

describe("the operating system's store", needs('openssl'), () => {
  it(
    hasSystemStore
      ? `Node ${process.versions.node}: read when the bundled authorities do not know the server's, and the handshake tried again (--verbose says so)`
      : `Node ${process.versions.node}: not applicable (tls.getCACertificates('system') needs 22.15), and --verbose says so`,
    async () => {
      const r = await run(signed, { SSL_CERT_FILE: certs.caCert }, ['--verbose']);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`* TLS to 127.0.0.1:${signed.port}: trusting SSL_CERT_FILE (${certs.caCert})\n`);
      expect(r.stderr).not.toContain('trying again');
      // The test's authority is in no system store: the second try fails too, and the run says why.
      const plain = await run(signed, {}, ['--verbose']);
      expect(plain.code).toBe(5);
      expect(plain.stderr).toContain(`* TLS to 127.0.0.1:${signed.port}: trusting Node's bundled authorities\n`);
      if (hasSystemStore) {
        const count = (tls as unknown as { getCACertificates(type: 'system'): string[] }).getCACertificates('system').length;
        expect(plain.stderr).toContain("* TLS: the operating system's store is read if these do not know a server's authority\n");
        expect(plain.stderr).toContain('(UNABLE_TO_VERIFY_LEAF_SIGNATURE)');
        expect(plain.stderr).toContain('; trying again with a wider set of certificate authorities\n');
        expect(plain.stderr).toContain(`* TLS: trusting the operating system's store (${count} ${count === 1 ? 'certificate' : 'certificates'}) as well\n`);
        expect(plain.stderr.match(/trying again with a wider set/g)).toHaveLength(1);
      } else {
        expect(plain.stderr).toContain(`* TLS: the operating system's store is not readable on Node ${process.versions.node} (tls.getCACertificates('system') needs Node 22.15 or later)\n`);
        expect(plain.stderr).not.toContain('trying again with a wider set');
      }
    },
  );

  it('an authority of the system store (here, the test\'s own, given as that store) vouches for the server in a real handshake', async () => {
    let reads = 0;
    const trust = trustedAuthorities({}, { bundled: tls.rootCertificates, system: () => (reads++, [readPem(certs.caCert)]), nodeVersion: '22.15.0' });
    expect(trust.sources).toEqual(["Node's bundled authorities"]);
    // Not read until a server's authority is unknown: a start pays nothing for it.
    expect(reads).toBe(0);
    expect(trust.ca).toBeUndefined();
    await expect(handshake(signed.port, secureContextFor(trust.ca))).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    const wider = trust.widened?.();
    expect(wider?.source).toBe("the operating system's store (1 certificate)");
    expect(reads).toBe(1);
    await expect(handshake(signed.port, secureContextFor(wider?.ca))).resolves.toBe(true);
    // With SSL_CERT_FILE, the store is never read.
    const replaced = trustedAuthorities({ SSL_CERT_FILE: certs.otherCaCert }, { bundled: [], system: () => { throw new Error('read'); }, nodeVersion: '24.0.0' });
    expect(replaced.sources).toEqual([`SSL_CERT_FILE (${certs.otherCaCert})`]);
    expect(replaced.widened).toBeUndefined();
  });

  it('the HTTP client tries the handshake once more with the wider set, and the request goes through', async () => {
    const traced: string[] = [];
    let widened = 0;
    const client = new HttpClient({
      baseUrl: new URL(httpsUrl(signed)),
      apiKey: KEY,
      timeoutMs: 10_000,
      allowHttp: false,
      userAgent: 'crawl-test',
      trace: (line) => traced.push(line),
      tls: { context: undefined, widen: () => (widened++, secureContextFor([readPem(certs.caCert)])) },
    });
    try {
      const response = await client.request({ method: 'GET', path: ['api', 'crawl', 'tls-job'] });
      expect(response.status).toBe(200);
      expect(widened).toBe(1);
      expect(traced.filter((line) => line.includes('trying again with a wider set'))).toHaveLength(1);
      // Once widened, later requests use the wider set at once.
      await client.request({ method: 'GET', path: ['api', 'crawl', 'tls-job'] });
      expect(widened).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe('the Node client trusts what the CLI trusts', needs('openssl'), () => {
  it('NODE_EXTRA_CA_CERTS from its environment: the job is read; without it, the TLS error and its hint', async () => {
    const system = (env: Record<string, string>) => ({ env: { CRAWL_BASE_URL: httpsUrl(signed), CRAWL_API_KEY: KEY, ...env }, clock: fakeClock(), nodeVersion: process.versions.node });
    const trusted = makeClient({}, system({ NODE_EXTRA_CA_CERTS: certs.caCert }));
    const untrusted = makeClient({}, system({}));
    try {
      const job = await trusted.jobs.get('tls-job');
      expect(job.id).toBe('tls-job');
      await expect(untrusted.jobs.get('tls-job')).rejects.toMatchObject({ exitCode: 5, message: expect.stringContaining('crawl does not know') });
    } finally {
      await trusted.close();
      await untrusted.close();
    }
  });
});

function emptyDir(): string {
  const dir = `${tmp.dir}/empty`;
  mkdirSync(dir, { recursive: true });
  return dir;
}

function readPem(path: string): string {
  return trustedAuthorities({ SSL_CERT_FILE: path }, { bundled: [], system: undefined, nodeVersion: '20.0.0' }).ca?.[0] ?? '';
}

function handshake(port: number, secureContext: tls.SecureContext | undefined): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ...(secureContext ? { secureContext } : {}) }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', reject);
  });
}
