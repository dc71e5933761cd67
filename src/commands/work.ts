// The work of every command, behind the one dynamic import each command's run makes: bundled, any
// command then loads one chunk of work (and help none), where an import per command would split the
// shared code into dozens of small chunks, each paid for at start-up. Typed, by name: no dispatch.
export { callApi } from './api/lib/call.js';
export { printCompletions, printCompletionScript } from './completion/lib/print.js';
export { logIn } from './auth/lib/login.js';
export { logOut } from './auth/lib/logout.js';
export { showAuthStatus } from './auth/lib/status.js';
export { printToken } from './auth/lib/token.js';
export { getSetting } from './config/lib/get.js';
export { listSettings } from './config/lib/list.js';
export { printPath } from './config/lib/path.js';
export { setSetting } from './config/lib/set.js';
export { unsetSetting } from './config/lib/unset.js';
export { cancelJob } from './job/lib/cancel.js';
export { exportPagesOf } from './job/lib/pages.js';
export { showStatus } from './job/lib/status.js';
export { watchJob } from './job/lib/watch.js';
export { createNewKey } from './keys/lib/create.js';
export { listKeysOf } from './keys/lib/list.js';
export { pruneKeys } from './keys/lib/prune.js';
export { revokeKeys } from './keys/lib/revoke.js';
export { rotateKey } from './keys/lib/rotate.js';
