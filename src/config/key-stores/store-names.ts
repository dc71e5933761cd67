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

/** `NAME=value` before a command: a variable the shell sets for it, whose value may be the key. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * The program a command runs, as `auth status` shows it: `op read op://…` is "command: op …".
 * Variables set before it (`K=… printenv K`) are passed over, values unseen: "printenv".
 */
export function commandName(command: string): string {
  const words = command.trim().split(/\s+/);
  const first = words.find((word) => !ASSIGNMENT.test(word)) ?? words[0]?.replace(/=.*$/s, '=…') ?? '';
  const base = first.replace(/^.*[\\/]/, '');
  return base === '' ? '(empty)' : base.slice(0, 40);
}

export function describeCommand(readCommand: string): string {
  return `command: ${commandName(readCommand)} …`;
}

export function describeFile(path: string): string {
  return `config file, plaintext: ${path}`;
}
