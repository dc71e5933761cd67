// Two of undici's files require node:http up front for one value each; node:http (and the ten
// modules it loads) is otherwise never needed by crawl, whose requests go through undici's own
// parser. The bundle gets these files with each use made lazy: the same behaviour, with node:http
// loaded only when the value is asked for. And its HTTP/1 client gets the two enums it reads from
// llhttp's constants as a literal, without the tables that module builds as it loads. Each patch must match exactly once, or the build fails:
// an undici update that changes these lines is looked at, not silently bundled half-patched.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Plugin } from 'esbuild';

interface Patch {
  file: RegExp;
  from: string;
  to: string;
  /** What the patched file must no longer contain (a use the replacement does not provide). */
  absent?: RegExp;
}

const CLIENT_H1 = /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/;

/**
 * The two enums of llhttp's constants that undici's HTTP/1 client reads, as a literal. The module
 * itself also builds, as it loads, the tables llhttp's generator needs (methods, statuses,
 * character classes): a few hundred objects made for every request a command sends, and never
 * read. The values are taken from that module at build time, so they are undici's own.
 */
function llhttpEnums(): string {
  const constants = createRequire(import.meta.url)('undici/lib/llhttp/constants.js') as Record<string, unknown>;
  return JSON.stringify({ TYPE: constants.TYPE, ERROR: constants.ERROR });
}

export const PATCHES: readonly Patch[] = [
  {
    // The default response-header limit, read when a client is made without one. crawl's own
    // agent passes its limit (src/http/client.ts); the clients undici makes for a proxy do not,
    // and still get Node's default, from node:http, when they are made.
    file: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    from: `const http = require('node:http')\n`,
    to: `let http\n`,
  },
  {
    file: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    from: `const getDefaultNodeMaxHeaderSize = http &&
  http.maxHeaderSize &&
  Number.isInteger(http.maxHeaderSize) &&
  http.maxHeaderSize > 0
  ? () => http.maxHeaderSize
  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }`,
    to: `const getDefaultNodeMaxHeaderSize = () => {
  http ??= require('node:http')
  if (http && http.maxHeaderSize && Number.isInteger(http.maxHeaderSize) && http.maxHeaderSize > 0) return http.maxHeaderSize
  throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid')
}`,
  },
  {
    file: CLIENT_H1,
    from: `const constants = require('../llhttp/constants.js')\n`,
    to: `const constants = ${llhttpEnums()}\n`,
    absent: /\bconstants\.(?!TYPE\b|ERROR\b)\w/,
  },
  {
    // Used to tell a node:http response among the streams undici destroys. Only node:http makes
    // one, so a stream whose class is not even named so cannot be one, and needs no node:http.
    file: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]core[\\/]util\.js$/,
    from: `const { IncomingMessage } = require('node:http')\n`,
    to: ``,
  },
  {
    file: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]core[\\/]util\.js$/,
    from: `if (Object.getPrototypeOf(stream).constructor === IncomingMessage) {`,
    to: `if (Object.getPrototypeOf(stream).constructor?.name === 'IncomingMessage' && Object.getPrototypeOf(stream).constructor === require('node:http').IncomingMessage) {`,
  },
];

export const patchUndici: Plugin = {
  name: 'patch-undici',
  setup(build) {
    const applied = new Set<Patch>();
    const files = [...new Set(PATCHES.map((p) => p.file.source))].map((source) => new RegExp(source));
    for (const file of files) {
      build.onLoad({ filter: file }, async (args) => {
        let contents = await readFile(args.path, 'utf8');
        for (const patch of PATCHES.filter((p) => p.file.source === file.source)) {
          const at = contents.indexOf(patch.from);
          if (at < 0 || contents.indexOf(patch.from, at + 1) >= 0) {
            return { errors: [{ text: `${args.path}: the text patch-undici replaces is not there exactly once: check the patch still applies` }] };
          }
          contents = contents.slice(0, at) + patch.to + contents.slice(at + patch.from.length);
          if (patch.absent?.test(contents) === true) {
            return { errors: [{ text: `${args.path}: uses what patch-undici's replacement does not provide (${patch.absent.source}): check the patch still applies` }] };
          }
          applied.add(patch);
        }
        return { contents, loader: 'js' };
      });
    }
    build.onEnd((result) => {
      if (result.errors.length === 0 && applied.size !== PATCHES.length) {
        result.errors.push({ id: 'patch-undici', pluginName: 'patch-undici', text: "some of undici's files patch-undici patches were not bundled: check the patches still apply", location: null, notes: [], detail: undefined });
      }
    });
  },
};
