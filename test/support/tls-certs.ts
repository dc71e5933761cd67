// Certificate authorities of a test's own, made with openssl in a temporary folder: a CA, a server
// certificate it signs for 127.0.0.1, another CA that signs nothing here, and a self-signed server
// certificate. Nothing of the machine's trust store is touched.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shellQuote } from '../../src/text/shell.js';
import { requireTools } from './tools.js';

export interface TestCertificates {
  dir: string;
  /** PEM files. */
  caCert: string;
  otherCaCert: string;
  /** A folder holding caCert alone, as SSL_CERT_DIR names one. */
  caDir: string;
  /** The server's key and certificate (signed by caCert), as https.createServer takes them. */
  server: { key: string; cert: string };
  /** A self-signed server certificate, and its key. */
  selfSigned: { key: string; cert: string };
}

/** Elliptic-curve keys: made in a few milliseconds, where an RSA key takes a large part of a second. */
const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];

/** The openssl run that makes a CA called `name`. */
function makeCa(name: string): string[] {
  return ['req', '-x509', ...NEW_KEY, '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=crawl test ${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'];
}

/**
 * Each run in turn, stopping at the first that fails, from one `sh`: a spawn costs the test worker
 * far more CPU (it copies the worker's memory map) than one from a small shell.
 */
function openssl(cwd: string, runs: string[][]): void {
  const script = runs.map((args) => ['openssl', ...args].map(shellQuote).join(' ')).join(' && ');
  execFileSync('sh', ['-c', script], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function makeTestCertificates(dir: string): TestCertificates {
  requireTools('openssl');
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl(dir, [
    makeCa('ca'),
    makeCa('other-ca'),
    ['req', ...NEW_KEY, '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1'],
    ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext'],
    ['req', '-x509', ...NEW_KEY, '-nodes', '-keyout', 'self.key', '-out', 'self.pem', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
  ]);
  const caDir = join(dir, 'certs');
  mkdirSync(caDir);
  writeFileSync(join(caDir, 'test-ca.pem'), readFileSync(join(dir, 'ca.pem')));
  const read = (name: string): string => readFileSync(join(dir, name), 'utf8');
  return {
    dir,
    caCert: join(dir, 'ca.pem'),
    otherCaCert: join(dir, 'other-ca.pem'),
    caDir,
    server: { key: read('server.key'), cert: read('server.pem') },
    selfSigned: { key: read('self.key'), cert: read('self.pem') },
  };
}
