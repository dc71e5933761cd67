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
/** A value the shell does not end at the first blank: quoted, or a substitution. */
const UNSPLIT = /["'`]|\$\(/;
/** A word with a key's look (`crk_…`, `ghp_…`): never shown, only its scheme. */
const KEY_LIKE = /^([A-Za-z]{1,10}[_-])[A-Za-z0-9_-]{15,}$/;

/**
 * The program a command runs, as `auth status` shows it: `op read op://…` is "command: op …".
 * Variables set before it (`K=… printenv K`) are passed over, values unseen: "printenv". A value
 * that is quoted or substituted may hold blanks, so the words after it are not the program: the
 * variable's name stands for the command then (`TOKEN=…`). A word that looks like a key shows
 * only its scheme (`crk_…`).
 */
export function commandName(command: string): string {
  const words = command.trim().split(/\s+/);
  let first = words[0] ?? '';
  for (const word of words) {
    first = word;
    if (!ASSIGNMENT.test(word)) break;
    if (UNSPLIT.test(word) || word === words.at(-1)) {
      first = word.replace(/=.*$/s, '=…');
      break;
    }
  }
  const base = first.replace(/^.*[\\/]/, '');
  if (base === '') return '(empty)';
  const key = KEY_LIKE.exec(base);
  return key ? `${key[1]}…` : base.slice(0, 40);
}

export function describeCommand(readCommand: string): string {
  return `command: ${commandName(readCommand)} …`;
}

export function describeFile(path: string): string {
  return `config file, plaintext: ${path}`;
}
