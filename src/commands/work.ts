// The work of every command, loaded by the one dynamic import a run makes (app/run-cli.ts): bundled,
// any command then loads one chunk of work (and help none), where an import per command would split
// the shared code into dozens of small chunks, each paid for at start-up.
//
// One naming rule: a command's entry point is its words in camelCase, then Run (`crawl auth
// logout` is authLogoutRun, `crawl api` apiRun, the hidden `crawl __complete` completeRun), with
// the signature (deps, options) => Promise<number>. A registration names it (exec('authLogoutRun')
// in commands/auth/index.ts); a name missing here does not compile there.
export { apiRun } from './api/lib/call.js';
export { authLoginRun } from './auth/lib/login.js';
export { authLogoutRun } from './auth/lib/logout.js';
export { authStatusRun } from './auth/lib/status.js';
export { authTokenRun } from './auth/lib/token.js';
export { completeRun, completionRun } from './completion/lib/print.js';
export { configGetRun } from './config/lib/get.js';
export { configListRun } from './config/lib/list.js';
export { configPathRun } from './config/lib/path.js';
export { configSetRun } from './config/lib/set.js';
export { configUnsetRun } from './config/lib/unset.js';
export { jobCancelRun } from './job/lib/cancel.js';
export { jobPagesRun } from './job/lib/pages.js';
export { jobStatusRun } from './job/lib/status.js';
export { jobWatchRun } from './job/lib/watch.js';
export { keysCreateRun } from './keys/lib/create.js';
export { keysListRun } from './keys/lib/list.js';
export { keysPruneRun } from './keys/lib/prune.js';
export { keysRevokeRun } from './keys/lib/revoke.js';
export { keysRotateRun } from './keys/lib/rotate.js';
export { sandboxRun } from './sandbox/lib/sandbox.js';
