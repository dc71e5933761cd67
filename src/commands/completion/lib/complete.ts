// What a shell offers at Tab: the words typed so far, walked through the tree of commands (made
// from the program by ../completion.ts), give the candidates for the last word. Values that come
// from elsewhere (profiles, key ids) are asked of `sources`, which fail silently: completion never
// prints an error into a prompt.

import type { ConfigKey } from '../../../config/setting-names.js';

export interface OptionNode {
  /** `--interval`, and `-i` when it has a short form. */
  long: string | undefined;
  short: string | undefined;
  description: string;
  takesValue: boolean;
  choices: readonly string[] | undefined;
}

export interface CommandNode {
  name: string;
  description: string;
  options: readonly OptionNode[];
  commands: readonly CommandNode[];
  /** Its operands, in order: what each may complete to (a variadic last one repeats). */
  operands: ReadonlyArray<{ name: string; variadic: boolean; choices: readonly string[] | undefined }>;
  /** A group's command that runs when the word after the group names none of its commands (`crawl job <id>` is `job status`). */
  defaultCommand?: string;
}

/**
 * Candidates; or the shell's own file names or command names, for the part of the word after `own`
 * (`--output=`, `name=@`), which the shell puts back in front of each.
 */
export type Completion = { kind: 'values'; values: Array<{ value: string; description: string }> } | { kind: 'files' | 'commands'; own: string };

/** Where the values that are not in the tree come from. */
export interface Sources {
  profiles(): Promise<string[]>;
  keys(): Promise<Array<{ value: string; description: string }>>;
  /** The job ids looked at lately (the history in the XDG state folder). */
  jobs(): Promise<string[]>;
  helpTopics: readonly string[];
}

/** Options whose value is a path: the shell completes file names. */
const FILE_OPTIONS = new Set(['--output', '--output-file', '--input']);
/** Options whose value is a command line run through the shell: its first word is a command. */
const COMMAND_OPTIONS = new Set(['--to-command']);
/** Settings (`crawl config set <name> <value>`) whose value is a command line, as for COMMAND_OPTIONS. */
const COMMAND_SETTINGS: ReadonlySet<string> = new Set<ConfigKey>(['key-command', 'key-store-command']);
/** `crawl api -F name=@file`: a typed field whose value is read from a file. */
const FIELD_FROM_FILE = /^(?:--field|-F)$/;

export async function complete(root: CommandNode, words: readonly string[], sources: Sources): Promise<Completion> {
  const typed = words.slice(0, -1);
  const current = words.at(-1) ?? '';
  let node = root;
  const path: CommandNode[] = [root];
  const operands: string[] = [];
  let pendingOption: OptionNode | undefined;
  let afterDashes = false;
  // `crawl <group> help <command>`: the hidden help command of each group (a command with commands
  // of its own), not in the tree.
  let helpOf: CommandNode | undefined;
  for (const word of typed) {
    if (pendingOption) {
      pendingOption = undefined;
      continue;
    }
    if (!afterDashes && word === '--') {
      afterDashes = true;
      continue;
    }
    if (!afterDashes && word.startsWith('-') && word !== '-') {
      const option = findOption(path, word.split('=')[0] ?? word);
      if (option?.takesValue && !word.includes('=')) pendingOption = option;
      continue;
    }
    if (helpOf === undefined && operands.length === 0 && node !== root && node.commands.length > 0 && word === 'help' && !node.commands.some((c) => c.name === word)) {
      helpOf = node;
      continue;
    }
    const sub = helpOf === undefined && operands.length === 0 ? (node.commands.find((c) => c.name === word) ?? node.commands.find((c) => c.name === node.defaultCommand)) : undefined;
    if (sub) {
      node = sub;
      path.push(sub);
      // The group's default: the word is its first operand (`crawl job <id> --exit-status`).
      if (sub.name !== word) operands.push(word);
      continue;
    }
    operands.push(word);
  }
  const operand = operands.length;

  if (pendingOption) return optionValues(pendingOption, current, sources);
  if (!afterDashes && current.startsWith('-')) {
    const [name, value] = splitAssignment(current);
    if (value !== undefined) {
      const option = findOption(path, name);
      if (!option?.takesValue) return none();
      const values = await optionValues(option, value, sources);
      return values.kind === 'values' ? { kind: 'values', values: values.values.map((v) => ({ ...v, value: `${name}=${v.value}` })) } : { ...values, own: `${name}=${values.own}` };
    }
    return filtered(
      path.flatMap((command) => command.options).flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined).map((flag) => ({ value: flag, description: o.description }))),
      current,
    );
  }
  if (helpOf !== undefined) return filtered(operand === 0 ? helpOf.commands.map((c) => ({ value: c.name, description: c.description })) : [], current);
  if (isCommandSetting(path, operands)) return commandNames(current);
  const candidates: Array<{ value: string; description: string }> = [];
  if (operand === 0) candidates.push(...node.commands.map((c) => ({ value: c.name, description: c.description })));
  const spec = node.operands[operand] ?? (node.operands.at(-1)?.variadic ? node.operands.at(-1) : undefined);
  if (spec?.choices) candidates.push(...spec.choices.map((value) => ({ value, description: '' })));
  if (node === root.commands.find((c) => c.name === 'help')) {
    // `crawl help <topic or command>`, then `crawl help <group> <command>`.
    if (operand === 0) {
      candidates.push(...sources.helpTopics.map((value) => ({ value, description: 'help topic' })));
      candidates.push(...root.commands.filter((c) => c.name !== 'help').map((c) => ({ value: c.name, description: c.description })));
    }
    const group = operand === 1 ? root.commands.find((c) => c.name === operands[0] && c.commands.length > 0) : undefined;
    if (group) candidates.push(...group.commands.map((c) => ({ value: c.name, description: c.description })));
  }
  if (isKeyOperand(path, spec?.name)) candidates.push(...(await sources.keys()));
  if (isJobOperand(path, spec?.name, operand)) candidates.push(...(await sources.jobs()).map((value) => ({ value, description: 'recent' })));
  return filtered(candidates, current);
}

async function optionValues(option: OptionNode, current: string, sources: Sources): Promise<Completion> {
  if (option.choices) return filtered(option.choices.map((value) => ({ value, description: '' })), current);
  if (option.long === '--profile') return filtered((await sources.profiles()).map((value) => ({ value, description: 'profile' })), current);
  if (option.long !== undefined && FILE_OPTIONS.has(option.long)) return { kind: 'files', own: '' };
  if (option.long !== undefined && COMMAND_OPTIONS.has(option.long)) return commandNames(current);
  const fromFile = /^[^=]*=@/.exec(current)?.[0];
  if (fromFile !== undefined && FIELD_FROM_FILE.test(option.long ?? '')) return { kind: 'files', own: fromFile };
  return none();
}

/** The commands on PATH, for the first word of a command line (the rest is the user's). */
function commandNames(current: string): Completion {
  return /\s/.test(current) ? none() : { kind: 'commands', own: '' };
}

/** `config set key-command <value>`: a setting whose value is a command line. */
function isCommandSetting(path: readonly CommandNode[], operands: readonly string[]): boolean {
  return path.length === 3 && path[1]?.name === 'config' && path[2]?.name === 'set' && operands.length === 1 && COMMAND_SETTINGS.has(operands[0] ?? '');
}

/** `job <id>` (status, the group's default), `job status|watch|pages|cancel <id>`: the ids looked at lately. */
function isJobOperand(path: readonly CommandNode[], operand: string | undefined, index: number): boolean {
  if (path[1]?.name !== 'job') return false;
  return path.length === 2 ? index === 0 : operand === 'id';
}

/** `keys revoke <key...>`: the ids and prefixes the service lists. */
function isKeyOperand(path: readonly CommandNode[], operand: string | undefined): boolean {
  return path.length === 3 && path[1]?.name === 'keys' && path[2]?.name === 'revoke' && operand !== undefined;
}

function findOption(path: readonly CommandNode[], flag: string): OptionNode | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const found = path[i]?.options.find((o) => o.long === flag || o.short === flag);
    if (found) return found;
  }
  return undefined;
}

function splitAssignment(word: string): [string, string | undefined] {
  const at = word.indexOf('=');
  return at === -1 ? [word, undefined] : [word.slice(0, at), word.slice(at + 1)];
}

/**
 * The values that start with what was typed; when none does, those that start with it in another
 * case (`-X g`: GET): every shell puts the one candidate in place of the word.
 */
function filtered(values: ReadonlyArray<{ value: string; description: string }>, prefix: string): Completion {
  const seen = new Set<string>();
  const unique = values.filter((v) => !seen.has(v.value) && (seen.add(v.value), true));
  const exact = unique.filter((v) => v.value.startsWith(prefix));
  if (exact.length > 0) return { kind: 'values', values: exact };
  const folded = prefix.toLowerCase();
  return { kind: 'values', values: unique.filter((v) => v.value.toLowerCase().startsWith(folded)) };
}

function none(): Completion {
  return { kind: 'values', values: [] };
}
