// The layers of src/ (ARCHITECTURE.md), checked on every `npm test`: which folder may import which.
// Type-only imports count too, except where a rule says otherwise.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true, dependencyTypesNot: ['type-only'] } },
    {
      name: 'app-only-from-main',
      comment: 'app/ (runCli, the program, the Deps factory) is wired up by src/main.ts alone; commands get Deps',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/main\\.ts$', '^src/app/'] },
      to: { path: '^src/app/' },
    },
    {
      name: 'commands-layers',
      comment: 'a command uses the service (api, http), settings (config), output (io) and pure helpers; never app/ or undici',
      severity: 'error',
      from: { path: '^src/commands/', pathNot: '^src/commands/sandbox\\.ts$' },
      to: { path: '^src/(app|sandbox|build|bench|demo|launch)/|^src/http/undici\\.ts$' },
    },
    {
      name: 'sandbox-through-its-command',
      comment: '`crawl sandbox` is the one command that starts the sandbox',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/commands/sandbox\\.ts$', '^src/sandbox/', '^src/(build|bench|demo)/'] },
      to: { path: '^src/sandbox/' },
    },
    {
      name: 'commands-groups-apart',
      comment: "a group's lib/ is its own: what two groups share goes to commands/shared/ or a lower layer",
      severity: 'error',
      from: { path: '^src/commands/([^/]+)/' },
      to: { path: '^src/commands/([^/]+)/lib/', pathNot: '^src/commands/$1/lib/' },
    },
    {
      name: 'api-layers',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: '^src/(app|commands|config|io|sandbox|build|bench|demo|launch)/' },
    },
    {
      name: 'http-layers',
      comment: 'the HTTP layer knows nothing of settings, output or commands',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(app|commands|api|config|io|sandbox|build|bench|demo|launch)/' },
    },
    {
      name: 'config-layers',
      comment: 'the config store knows nothing of the service, output or commands',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/(app|commands|api|http|io|sandbox|build|bench|demo|launch)/' },
    },
    {
      name: 'io-layers',
      severity: 'error',
      from: { path: '^src/io/' },
      to: { path: '^src/(app|commands|api|http|config|sandbox|build|bench|demo|launch)/' },
    },
    {
      name: 'pure-bottom',
      comment: 'text/, platform/, errors and exit codes stand on node: alone',
      severity: 'error',
      from: { path: '^src/(text/|platform/|errors\\.ts$|exit-codes\\.ts$)' },
      to: { path: '^src/', pathNot: '^src/(text/|platform/|errors\\.ts$|exit-codes\\.ts$)' },
    },
    {
      name: 'sandbox-apart',
      comment: 'the sandbox is a server of its own: it imports nothing of the CLI',
      severity: 'error',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/', pathNot: '^src/sandbox/' },
    },
    {
      name: 'tooling-apart',
      comment: 'nothing the CLI runs imports the build, the benchmark or the demo',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(build|bench|demo)/' },
      to: { path: '^src/(build|bench|demo)/' },
    },
    { name: 'undici-adapter', severity: 'error', from: { path: '^src/', pathNot: '^src/http/undici\\.ts$' }, to: { path: 'node_modules/undici/', dependencyTypesNot: ['type-only'] } },
    { name: 'conf-adapter', severity: 'error', from: { path: '^src/', pathNot: '^src/config/conf-writer\\.ts$' }, to: { path: 'node_modules/conf/' } },
    { name: 'chalk-adapter', severity: 'error', from: { path: '^src/', pathNot: '^src/io/style\\.ts$' }, to: { path: 'node_modules/chalk/' } },
    {
      name: 'commander-in-app-and-commands',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(app|commands)/' },
      to: { path: 'node_modules/(commander|@commander-js)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.build.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.cts', '.js', '.cjs'] },
    moduleSystems: ['es6', 'cjs'],
  },
};
