// Modules our packages require up front but that crawl never uses, or uses only when something
// has gone wrong: loading them is part of what separates `crawl job <id>` from a plain node:http
// GET. The bundle gets, in their place, a stand-in that loads the real module the first time it
// is needed, so the packages' code runs unchanged: only when a module is loaded moves. A module
// crawl can never reach is left out of the bundle altogether (`absent`): its bytes would still be
// read and held as text by every command that loads the file it would be bundled into.
import { relative, sep } from 'node:path';
import type { Plugin } from 'esbuild';

interface Deferral {
  /** The file (inside node_modules) whose require is deferred. */
  importer: RegExp;
  specifier: string;
  /** Why crawl never reaches it; shown nowhere, kept here for the next reader. */
  why: string;
  /**
   * `lazy` (the default): loaded at the first use of anything of it. `assert`: a call with a
   * truthy first argument (a check that passed) does what the real assert does, nothing, without
   * loading it; anything else goes to the real module. `absent`: not bundled; any use of it
   * throws an error that names it (for code crawl's own calls cannot reach).
   */
  standIn?: 'lazy' | 'assert' | 'absent';
}

export const DEFERRALS: readonly Deferral[] = [
  {
    importer: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/,
    specifier: 'node:child_process',
    // child_process also loads dgram and the IPC machinery.
    why: 'used only to run executable subcommands (`git-foo` style); crawl declares none',
  },
  {
    importer: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    specifier: './client-h2.js',
    // client-h2 loads node:http2, which loads tls and crypto.
    why: 'called only when a connection negotiates HTTP/2, which needs allowH2 or useH2c; crawl sets neither',
    standIn: 'absent',
  },
  {
    // fetch's body code, with WebIDL, FormData and its parser, data: URLs: a third of undici's bytes.
    importer: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/,
    specifier: '../web/fetch/body.js',
    why: "required only to send a FormData body; crawl's HTTP client sends a string or a Buffer (src/http/client.ts)",
    standIn: 'absent',
  },
  {
    importer: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]/,
    specifier: 'node:assert',
    // assert loads its error class, the call tracker and the colour helpers.
    why: "undici checks its own invariants with assert(...) on every request; only a failed check needs the real module",
    standIn: 'assert',
  },
];

const NAMESPACE = 'crawl-deferred';

/**
 * The stand-in is a Proxy over a function, so it serves either kind of module export: called, it
 * calls the real export (client-h2 exports one function); read, it reads from it (child_process).
 */
function standIn(specifier: string, kind: Deferral['standIn'] = 'lazy'): string {
  const target = JSON.stringify(specifier);
  if (kind === 'absent') {
    const message = JSON.stringify(`crawl's bundle leaves out ${specifier}, which crawl never uses: this is a bug of crawl`);
    return `const absent = () => { throw new Error(${message}); };
module.exports = new Proxy(function absent() {}, { apply: absent, construct: absent, get: absent, has: absent });
`;
  }
  const apply = kind === 'assert' ? '(args[0] ? undefined : Reflect.apply(load(), self, args))' : 'Reflect.apply(load(), self, args)';
  return `let real;
const load = () => (real ??= require(${target}));
module.exports = new Proxy(function deferred() {}, {
  apply: (_, self, args) => ${apply},
  construct: (_, args) => Reflect.construct(load(), args),
  get: (_, key) => load()[key],
  has: (_, key) => key in load(),
});
`;
}

export const deferRequires: Plugin = {
  name: 'defer-requires',
  setup(build) {
    const specifiers = [...new Set(DEFERRALS.map((d) => d.specifier))];
    const filter = new RegExp(`^(${specifiers.map((s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);
    const seen = new Set<string>();
    const root = build.initialOptions.absWorkingDir ?? process.cwd();
    build.onResolve({ filter }, (args) => {
      const deferral = DEFERRALS.find((d) => d.specifier === args.path && d.importer.test(args.importer));
      if (!deferral) return undefined;
      seen.add(deferral.specifier);
      // One stand-in a module: a built-in one is the same module whoever requires it, a relative
      // one is named by its importer (relative to the project: the name appears in the bundle).
      const kind = deferral.standIn ?? 'lazy';
      const path = args.path.startsWith('.') ? `${relative(root, args.importer).split(sep).join('/')}#${args.path}#${kind}` : `${args.path}#${kind}`;
      return { path, namespace: NAMESPACE, pluginData: { resolveDir: args.resolveDir, specifier: args.path, kind: deferral.standIn } };
    });
    build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
      const { resolveDir, specifier, kind } = args.pluginData as { resolveDir: string; specifier: string; kind: Deferral['standIn'] };
      return { contents: standIn(specifier, kind), resolveDir, loader: 'js' };
    });
    // A package update that moves or drops the require must not go unnoticed: the saving would
    // silently vanish (or, worse, a renamed module would load eagerly again).
    build.onEnd((result) => {
      if (result.errors.length > 0) return;
      const missing = DEFERRALS.filter((d) => !seen.has(d.specifier));
      if (missing.length > 0) {
        result.errors.push(
          ...missing.map((d) => ({
            id: 'defer-requires',
            pluginName: 'defer-requires',
            text: `no require of ${d.specifier} found in ${d.importer.source}; check the deferral still applies`,
            location: null,
            notes: [],
            detail: undefined,
          })),
        );
      }
    });
  },
};
