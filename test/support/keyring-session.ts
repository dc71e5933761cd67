// The real Secret Service a keyring test runs against: the same one `npm run bench` measures with,
// its programs checked first (test/support/tools.ts), so a machine without them fails naming the
// package rather than with a spawn's ENOENT.
import { startKeyringSession as startSession, type KeyringSession, type KeyringSessionOptions } from '../../src/bench/keyring-session.js';
import { requireTools, type Tool } from './tools.js';

export { KEYRING_PASSWORD, type KeyringSession, type KeyringSessionOptions } from '../../src/bench/keyring-session.js';

/** What a keyring session runs: a bus, and GNOME Keyring on it. A test that checks with secret-tool needs that too. */
export const KEYRING_TOOLS: Tool[] = ['dbus-daemon', 'gnome-keyring-daemon'];

export async function startKeyringSession(options: KeyringSessionOptions = {}): Promise<KeyringSession> {
  requireTools(...(options.keyring === false ? (['dbus-daemon'] as const) : KEYRING_TOOLS));
  const session = await startSession(options);
  return {
    ...session,
    secretTool: (args) => {
      requireTools('secret-tool');
      return session.secretTool(args);
    },
  };
}
