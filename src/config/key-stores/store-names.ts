// What each store is called, for people (`auth status`, messages): known without loading the
// store's code, which loads only when a key is read, written or erased (open.ts).

/** The keyring's name on this system, as people know it. */
export function keyringName(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'macOS Keychain';
  if (platform === 'win32') return 'Windows Credential Manager';
  return 'Secret Service';
}

export function describeKeyring(platform: NodeJS.Platform): string {
  return `system keyring (${keyringName(platform)})`;
}

/** The first word of a command, as `auth status` shows it: `op read op://…` is "command: op …". */
export function commandName(command: string): string {
  const first = command.trim().split(/\s+/)[0] ?? '';
  const base = first.replace(/^.*[\\/]/, '');
  return base === '' ? '(empty)' : base.slice(0, 40);
}

export function describeCommand(readCommand: string): string {
  return `command: ${commandName(readCommand)} …`;
}

export function describeFile(path: string): string {
  return `config file, plaintext: ${path}`;
}
