// The desktop session's bus where systemd keeps it for each user (`/run/user/<uid>/bus`), named
// to a shell that lacks it (an SSH login, `env -u DBUS_SESSION_BUS_ADDRESS`) as the way to reach
// the keyring from there. Only a socket that is there and is the user's own is named: a hint must
// never point at nothing, nor at another user's bus.
import { lstatSync } from 'node:fs';
import { posix } from 'node:path';

/**
 * `unix:path=<runtimeDir>/bus` when that is a socket owned by `uid` and not the bus `env` already
 * names (DBUS_SESSION_BUS_ADDRESS, else `$XDG_RUNTIME_DIR/bus`: crawl has tried that one); else undefined.
 */
export function userBusAddress(runtimeDir: string | undefined, uid: number | undefined, env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (runtimeDir === undefined || runtimeDir === '' || uid === undefined) return undefined;
  const path = posix.join(runtimeDir, 'bus');
  const address = `unix:path=${escapeAddressValue(path)}`;
  const named = env.DBUS_SESSION_BUS_ADDRESS ? env.DBUS_SESSION_BUS_ADDRESS.split(';') : env.XDG_RUNTIME_DIR ? [`unix:path=${escapeAddressValue(posix.join(env.XDG_RUNTIME_DIR, 'bus'))}`] : [];
  if (named.includes(address)) return undefined;
  try {
    const stat = lstatSync(path);
    if (!stat.isSocket() || stat.uid !== uid) return undefined;
  } catch {
    return undefined;
  }
  return address;
}

/**
 * A value of a D-Bus address as the specification escapes it: bytes outside `[-0-9A-Za-z_/.*]`
 * as `%XX` of their UTF-8 encoding, so a path with `;`, `,`, `=` or `%` in it stays one value.
 */
export function escapeAddressValue(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[-0-9A-Za-z_/.*]/.test(char) ? char : `%${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}
