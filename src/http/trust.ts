// The certificate authorities crawl trusts for https://. As curl and OpenSSL do, SSL_CERT_FILE (a
// PEM bundle) and SSL_CERT_DIR (folders of PEM files, `:`-separated) are trusted in place of the
// bundled authorities; NODE_EXTRA_CA_CERTS (a PEM file) is added to whichever set that is; and,
// on a Node that can read it (tls.getCACertificates('system'): 22.15 and later), the operating
// system's store is trusted beside the bundled authorities, as gh trusts it: a company's root
// installed there works without a variable. The store is read only when a server's certificate
// comes from an authority the others do not know (the connection is then tried once more):
// reading and parsing hundreds of certificates at every start would cost every https:// command
// far more than its request.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as tls from 'node:tls';
import { UsageError } from '../errors.js';
import type { Env } from '../platform/env.js';

export interface Trust {
  /** The PEM certificates every connection trusts first; undefined: Node's own defaults, nothing added. */
  ca: string[] | undefined;
  /**
   * The wider set to try once when a server's authority is unknown to the first (the system store
   * beside it), read when called; undefined when there is none.
   */
  widened: (() => { ca: string[]; source: string }) | undefined;
  /** Where the first set comes from, for --verbose: `Node's bundled authorities`. */
  sources: string[];
  /** Why the operating system's store is not among the sources, when it is not. */
  systemStoreNote: string | undefined;
}

/** What Node offers: its bundled authorities, and a reader of the system's store where it has one. */
export interface Authorities {
  bundled: readonly string[];
  system: (() => readonly string[]) | undefined;
  nodeVersion: string;
}

export function nodeAuthorities(nodeVersion: string): Authorities {
  const read = (tls as { getCACertificates?: (type: 'system') => string[] }).getCACertificates;
  return {
    // Read when used (NODE_EXTRA_CA_CERTS, or a wider set): Node makes the list of its own
    // authorities when first asked, and with neither, the default context has them already.
    get bundled() {
      return tls.rootCertificates;
    },
    system: read === undefined ? undefined : () => read('system'),
    nodeVersion,
  };
}

/** One context for every connection of a client: the certificates are parsed once, not at each handshake. */
export function secureContextFor(ca: readonly string[] | undefined): tls.SecureContext | undefined {
  return ca === undefined ? undefined : tls.createSecureContext({ ca: [...ca] });
}


const PEM = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+?-----END CERTIFICATE-----/g;

export function trustedAuthorities(env: Env, node: Authorities): Trust {
  const sources: string[] = [];
  let base: string[] | undefined;
  let systemStoreNote: string | undefined;
  let readSystem: (() => readonly string[]) | undefined;
  if (env.SSL_CERT_FILE || env.SSL_CERT_DIR) {
    base = [];
    if (env.SSL_CERT_FILE) {
      base.push(...certificatesInFile('SSL_CERT_FILE', env.SSL_CERT_FILE));
      sources.push(`SSL_CERT_FILE (${env.SSL_CERT_FILE})`);
    }
    if (env.SSL_CERT_DIR) {
      for (const dir of env.SSL_CERT_DIR.split(':').filter(Boolean)) base.push(...certificatesInDir(dir));
      sources.push(`SSL_CERT_DIR (${env.SSL_CERT_DIR})`);
    }
    systemStoreNote = "the bundled authorities and the operating system's store are replaced by SSL_CERT_FILE / SSL_CERT_DIR";
  } else {
    sources.push("Node's bundled authorities");
    if (node.system === undefined) {
      systemStoreNote = `the operating system's store is not readable on Node ${node.nodeVersion} (tls.getCACertificates('system') needs Node 22.15 or later)`;
    } else {
      readSystem = node.system;
      systemStoreNote = "the operating system's store is read if these do not know a server's authority";
    }
  }
  let extra: string[] = [];
  if (env.NODE_EXTRA_CA_CERTS) {
    extra = certificatesInFile('NODE_EXTRA_CA_CERTS', env.NODE_EXTRA_CA_CERTS);
    base = [...(base ?? node.bundled), ...extra];
    sources.push(`NODE_EXTRA_CA_CERTS (${env.NODE_EXTRA_CA_CERTS})`);
  }
  const system = readSystem;
  const widened = system === undefined
    ? undefined
    : () => {
        const stored = system();
        return {
          ca: [...new Set([...node.bundled, ...stored, ...extra])],
          source: `the operating system's store (${stored.length} ${stored.length === 1 ? 'certificate' : 'certificates'})`,
        };
      };
  return { ca: base === undefined ? undefined : [...new Set(base)], widened, sources, systemStoreNote };
}

function certificatesInFile(variable: string, path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${variable} names ${path}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`, `point ${variable} at a PEM file of certificates, or unset it`);
  }
  const found = text.match(PEM) ?? [];
  if (found.length === 0) throw new UsageError(`${variable} names ${path}, which holds no PEM certificate`, 'a PEM certificate begins with -----BEGIN CERTIFICATE-----');
  return found;
}

/** Every PEM certificate in the folder's files (OpenSSL names them by hash, `1a2b3c4d.0`). */
function certificatesInDir(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    throw new UsageError(`SSL_CERT_DIR names ${dir}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`, 'point SSL_CERT_DIR at folders of PEM certificates, or unset it');
  }
  const found: string[] = [];
  for (const name of names.sort()) {
    const path = join(dir, name);
    try {
      if (!statSync(path).isFile()) continue;
      found.push(...(readFileSync(path, 'utf8').match(PEM) ?? []));
    } catch {
      // A file that vanished or cannot be read is not a certificate OpenSSL would use either.
    }
  }
  return found;
}

/** What HttpClient takes (its `tls` option): the first context, and the wider one to try once. */
export interface TlsOptions {
  context: tls.SecureContext | undefined;
  widen: (() => tls.SecureContext | undefined) | undefined;
}

/** The trust of `env`, as HttpClient takes it; `trace` hears which sets are trusted, and when. */
export function tlsOptionsFor(env: Env, nodeVersion: string, host: string, trace: (line: string) => void = () => undefined): TlsOptions {
  const trust = trustedAuthorities(env, nodeAuthorities(nodeVersion));
  trace(`TLS to ${host}: trusting ${trust.sources.join(', ')}`);
  if (trust.systemStoreNote !== undefined) trace(`TLS: ${trust.systemStoreNote}`);
  const widened = trust.widened;
  return {
    context: secureContextFor(trust.ca),
    widen: widened === undefined ? undefined : () => {
      const wider = widened();
      trace(`TLS: trusting ${wider.source} as well`);
      return secureContextFor(wider.ca);
    },
  };
}
