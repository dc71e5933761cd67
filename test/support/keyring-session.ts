// The real Secret Service a keyring test runs against: the same one `npm run bench` measures with,
// on either implementation of the bus (each keyring test runs on both), its programs checked first
// (test/support/tools.ts), so a machine without them fails naming the package rather than with a
// spawn's ENOENT.
import { describe } from 'vitest';
import { BUS_KINDS as BUS_KINDS_OF_TESTS, startKeyringSession as startSession, type BusKind, type KeyringSession, type KeyringSessionOptions } from '../../src/bench/keyring-session.js';
import { needs, requireTools, type Tool } from './tools.js';

export { BUS_KINDS, KEYRING_PASSWORD, type BusKind, type KeyringSession, type KeyringSessionOptions } from '../../src/bench/keyring-session.js';

/** What a session on `bus` runs: the bus (dbus-broker through its Python launcher), and GNOME Keyring on it unless `keyring` is false. */
export function keyringTools(bus: BusKind = 'dbus-daemon', keyring = true): Tool[] {
  const busTools: Tool[] = bus === 'dbus-broker' ? ['dbus-broker', 'python3'] : ['dbus-daemon'];
  return keyring ? [...busTools, 'gnome-keyring-daemon'] : busTools;
}

/** What a keyring session runs on the default bus. A test that checks with secret-tool needs that too. */
export const KEYRING_TOOLS: Tool[] = keyringTools();

export async function startKeyringSession(options: KeyringSessionOptions = {}): Promise<KeyringSession> {
  requireTools(...keyringTools(options.bus, options.keyring !== false));
  const session = await startSession(options);
  return {
    ...session,
    secretTool: (args) => {
      requireTools('secret-tool');
      return session.secretTool(args);
    },
  };
}

/**
 * `describe` once a bus (`%s` in the name is the bus), each declaring what its bus needs (GNOME
 * Keyring too, unless `keyring` is false) and the other `tools` it runs, so a machine with one bus runs that one's tests and skips the other's by name.
 */
export function describeEachBus(name: string, uses: { tools?: readonly Tool[]; keyring?: boolean }, body: (bus: BusKind) => void): void {
  for (const bus of BUS_KINDS_OF_TESTS) describe(name.replace('%s', bus), needs(...keyringTools(bus, uses.keyring !== false), ...(uses.tools ?? [])), () => body(bus));
}
