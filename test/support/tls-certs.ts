// Certificate authorities of a test's own, made with openssl in a temporary folder: a CA, a server
// certificate it signs for 127.0.0.1, another CA that signs nothing here, and a self-signed server
// certificate. Nothing of the machine's trust store is touched.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

function openssl(cwd: string, args: string[]): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function makeCa(dir: string, name: string): void {
  openssl(dir, ['req', '-x509', ...NEW_KEY, '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=crawl test ${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
}

export function makeTestCertificates(dir: string): TestCertificates {
  requireTools('openssl');
  makeCa(dir, 'ca');
  makeCa(dir, 'other-ca');
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl(dir, ['req', ...NEW_KEY, '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  openssl(dir, ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext']);
  openssl(dir, ['req', '-x509', ...NEW_KEY, '-nodes', '-keyout', 'self.key', '-out', 'self.pem', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1']);
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
