// Two modules our packages require up front but that crawl never uses: loading them is most of
// what separates `crawl job <id>` from a plain node:http GET. The bundle gets, in their place, a
// stand-in that loads the real module the first time anything of it is used, so the packages'
// code runs unchanged: only when a module is loaded moves.
import { relative, sep } from 'node:path';
import type { Plugin } from 'esbuild';

interface Deferral {
  /** The file (inside node_modules) whose require is deferred. */
  importer: RegExp;
  specifier: string;
  /** Why crawl never reaches it; shown nowhere, kept here for the next reader. */
  why: string;
}

export const DEFERRALS: readonly Deferral[] = [
  {
    importer: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/,
    specifier: 'node:child_process',
    // ~5 ms: child_process also loads dgram and the IPC machinery.
    why: 'used only to run executable subcommands (`git-foo` style); crawl declares none',
  },
  {
    importer: /[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    specifier: './client-h2.js',
    // ~15 ms: client-h2 loads node:http2, which loads tls and crypto.
    why: 'called only when a connection negotiates HTTP/2, which needs allowH2; crawl never sets it',
  },
];

const NAMESPACE = 'crawl-deferred';

/**
 * The stand-in is a Proxy over a function, so it serves either kind of module export: called, it
 * calls the real export (client-h2 exports one function); read, it reads from it (child_process).
 */
function standIn(specifier: string): string {
  const target = JSON.stringify(specifier);
  return `let real;
const load = () => (real ??= require(${target}));
module.exports = new Proxy(function deferred() {}, {
  apply: (_, self, args) => Reflect.apply(load(), self, args),
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
      // A name relative to the project: it appears in the bundle, which should not depend on
      // where the project was built.
      const path = `${relative(root, args.importer).split(sep).join('/')}#${args.path}`;
      return { path, namespace: NAMESPACE, pluginData: { resolveDir: args.resolveDir, specifier: args.path } };
    });
    build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
      const { resolveDir, specifier } = args.pluginData as { resolveDir: string; specifier: string };
      return { contents: standIn(specifier), resolveDir, loader: 'js' };
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
