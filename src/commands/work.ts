// The work of every command, each entry point loaded by a dynamic import of its own when its
// command runs (app/run-cli.ts): bundled, a command compiles its own work and what it shares with
// others (esbuild's shared chunks), never the work of every other command.
//
// One naming rule: a command's entry point is its words in camelCase, then Run (`crawl auth
// logout` is authLogoutRun, `crawl api` apiRun, the hidden `crawl __complete` completeRun), with
// the signature (deps, options) => Promise<number>. A registration names it (exec('authLogoutRun')
// in commands/auth/index.ts); a name missing here does not compile there.
export const work = {
  apiRun: async () => (await import('./api/lib/call.js')).apiRun,
  authLoginRun: async () => (await import('./auth/lib/login.js')).authLoginRun,
  authLogoutRun: async () => (await import('./auth/lib/logout.js')).authLogoutRun,
  authStatusRun: async () => (await import('./auth/lib/status.js')).authStatusRun,
  authTokenRun: async () => (await import('./auth/lib/token.js')).authTokenRun,
  completeRun: async () => (await import('./completion/lib/print.js')).completeRun,
  completionRun: async () => (await import('./completion/lib/print.js')).completionRun,
  configGetRun: async () => (await import('./config/lib/get.js')).configGetRun,
  configListRun: async () => (await import('./config/lib/list.js')).configListRun,
  configPathRun: async () => (await import('./config/lib/path.js')).configPathRun,
  configSetRun: async () => (await import('./config/lib/set.js')).configSetRun,
  configUnsetRun: async () => (await import('./config/lib/unset.js')).configUnsetRun,
  jobCancelRun: async () => (await import('./job/lib/cancel.js')).jobCancelRun,
  jobPagesRun: async () => (await import('./job/lib/pages.js')).jobPagesRun,
  jobStatusRun: async () => (await import('./job/lib/status.js')).jobStatusRun,
  jobWatchRun: async () => (await import('./job/lib/watch.js')).jobWatchRun,
  keysCreateRun: async () => (await import('./keys/lib/create.js')).keysCreateRun,
  keysListRun: async () => (await import('./keys/lib/list.js')).keysListRun,
  keysPruneRun: async () => (await import('./keys/lib/prune.js')).keysPruneRun,
  keysRevokeRun: async () => (await import('./keys/lib/revoke.js')).keysRevokeRun,
  keysRotateRun: async () => (await import('./keys/lib/rotate.js')).keysRotateRun,
  sandboxRun: async () => (await import('./sandbox/lib/sandbox.js')).sandboxRun,
};
