// The real Secret Service a keyring test runs against: the same one `npm run bench` measures with,
// on either implementation of the bus (each keyring test runs on both).
import { spawnSync } from 'node:child_process';
import { DBUS_BROKER_TOOLS } from '../../src/bench/dbus-broker.js';
import type { BusKind } from '../../src/bench/keyring-session.js';

export { BUS_KINDS, KEYRING_PASSWORD, startKeyringSession, type BusKind, type KeyringSession } from '../../src/bench/keyring-session.js';

/**
 * What a bus needs that this machine lacks, as "<command> (Debian package <name>)", or undefined
 * when all of it is there: the one place to ask before a test runs on that bus.
 */
export function busToolsMissing(bus: BusKind): string | undefined {
  const tools = bus === 'dbus-broker' ? DBUS_BROKER_TOOLS : [{ command: 'dbus-daemon', debianPackage: 'dbus-daemon' }];
  const missing = tools.filter(({ command }) => spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { stdio: 'ignore' }).status !== 0);
  return missing.length === 0 ? undefined : missing.map(({ command, debianPackage }) => `${command} (Debian package ${debianPackage})`).join(', ');
}
