// Every command's handler, behind the one dynamic import the program makes when a command runs.
// One module rather than one import per command: bundled, the CLI then loads a handful of files
// for any command instead of a shared chunk for each combination of commands (Node 20's ESM
// loader pays for every file), while `--help` and `--version` still load none of this, nor the
// context (settings, config store, HTTP layer) that every command runs with.
import { processIO } from '../io/io.js';
import { Context } from '../app/factory.js';
import { parseGlobals } from '../commands/shared/flags.js';

export { processIO };

/** The context a command runs with, from commander's merged options (validated here). */
export function createContext(env: NodeJS.ProcessEnv, opts: Record<string, unknown>, interrupt: AbortSignal): Context {
  const globals = parseGlobals(opts);
  const io = processIO(env, { noColor: globals.noColor, noInput: globals.noInput });
  return new Context(io, env, globals, interrupt);
}

export { handler as jobStatus } from '../commands/job/status.js';
export { handler as jobWatch } from '../commands/job/watch.js';
export { handler as jobPages } from '../commands/job/pages.js';
export { handler as jobCancel } from '../commands/job/cancel.js';
export { handler as keysCreate } from '../commands/keys/create.js';
export { handler as keysList } from '../commands/keys/list.js';
export { handler as keysRevoke } from '../commands/keys/revoke.js';
export { handler as keysRotate } from '../commands/keys/rotate.js';
export { handler as authLogin } from '../commands/auth/login.js';
export { handler as authStatus } from '../commands/auth/status.js';
export { handler as authToken } from '../commands/auth/token.js';
export { handler as authLogout } from '../commands/auth/logout.js';
export { get as configGet, set as configSet, unset as configUnset, list as configList, path as configPath } from '../commands/config/config.js';
export { handler as sandbox } from '../commands/sandbox.js';
export { helpTopic } from '../commands/help.js';
