// Which of the bundle's files go together into one file of the pack. esbuild splits the bundle at
// every dynamic import, and gives the code that several of those imports share chunks of its own,
// one for each set of importers: with a module a command and its work a command, a status read
// would load some fifty small files, each read and compiled on its own. Packed together here:
//
// - everything main.cjs requires up front (esbuild does not know main is always loaded first, so
//   it splits off what main shares with the commands): into main.cjs's file;
// - what the program (src/app/program.ts) shares only with the commands' declarations, which it
//   loads (commander, the shared flags): into the program's file, which every run loads but Tab's
//   completions (src/app/run-cli.ts);
// - each file a dynamic import loads: a file of its own (a command's declaration, its work, the
//   run's factory, the HTTP layer, undici ...), so a command reads only its own;
// - code that commands share: within one command group (`job status` and `job watch`'s view),
//   one file for the group; across groups, or with a part loaded on demand (settings, the config
//   file, the HTTP client's errors), one common file, which every command that runs reads with
//   the run's factory (a command that sends nothing reads the HTTP client's code there, and never
//   runs it);
// - code only parts loaded on demand share (the display-width code and the truncation built on
//   it): with the first of them.
//
// A command then reads a few files, at the price of some code of its group's other commands, or
// of the others', that it does not run (read, never compiled).

/** A file of esbuild's output, by its name in the pack (`main.cjs`, `chunks/…`). */
export interface OutputFile {
  /** The files it requires up front. */
  imports: readonly string[];
  /** The files it may load later (dynamic imports). */
  dynamicImports: readonly string[];
  /** The source module a dynamically imported file is made for (`src/commands/job/status.ts`). */
  entryPoint?: string | undefined;
}

export const MAIN = 'main.cjs';
export const COMMON = 'chunks/common.cjs';

/** The pack's file each output file goes into (its own name when it is its own file). */
export function containers(outputs: ReadonlyMap<string, OutputFile>): Map<string, string> {
  const entries = new Set([MAIN]);
  for (const file of outputs.values()) for (const target of file.dynamicImports) entries.add(target);
  // Which entries load each file, directly or through the files they require up front.
  const loadedBy = new Map<string, Set<string>>();
  for (const entry of entries) {
    const queue = [entry];
    const seen = new Set(queue);
    while (queue.length > 0) {
      const name = queue.pop() as string;
      let by = loadedBy.get(name);
      if (by === undefined) loadedBy.set(name, (by = new Set()));
      by.add(entry);
      for (const next of outputs.get(name)?.imports ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
  }
  const program = [...outputs].find(([, file]) => file.entryPoint === PROGRAM)?.[0];
  const afterProgram = (entry: string): boolean => entry === program || isDeclaration(outputs.get(entry)?.entryPoint);
  const into = new Map<string, string>();
  for (const name of outputs.keys()) {
    const by = loadedBy.get(name) ?? new Set([name]);
    if (by.has(MAIN)) into.set(name, MAIN);
    else if (entries.has(name)) into.set(name, name);
    else if (program !== undefined && by.has(program) && [...by].every(afterProgram)) into.set(name, program);
    else if (by.size === 1) into.set(name, [...by][0] as string);
    else into.set(name, sharedFile([...by].sort(), outputs));
  }
  return into;
}

/** Where code several dynamically loaded files share goes (see the top of this file). */
function sharedFile(by: readonly string[], outputs: ReadonlyMap<string, OutputFile>): string {
  // Shared by parts loaded on demand alone (the display-width code and the truncation built on it): with the first of them.
  if (!by.some((entry) => ranByCommands(outputs.get(entry)?.entryPoint))) return by[0] as string;
  const groups = new Set(by.map((entry) => commandGroup(outputs.get(entry)?.entryPoint)));
  const [group] = groups;
  return groups.size === 1 && group !== undefined ? `chunks/${group}-shared.cjs` : COMMON;
}

/** What a command's run loads as such: its declaration and work (and the service calls they make), and the run's factory. */
function ranByCommands(entryPoint: string | undefined): boolean {
  return entryPoint !== undefined && (/^src\/(commands|api)\//.test(entryPoint) || entryPoint === RUN_FACTORY);
}

/** Loaded by every command that runs (src/app/run-cli.ts). */
const RUN_FACTORY = 'src/app/factory.ts';

/** The program: loaded by every run but Tab's completions, and before any command's declaration. */
const PROGRAM = 'src/app/program.ts';

/** A command's declaration (`src/commands/job/status.ts`), which only the program loads; not its work (lib/). */
function isDeclaration(entryPoint: string | undefined): boolean {
  return /^src\/commands\/(?!shared\/)[^/]+\/[^/]+\.ts$/.test(entryPoint ?? '');
}

/** `job` for a module of src/commands/job/ (its declarations and its lib/); none for the rest. */
function commandGroup(entryPoint: string | undefined): string | undefined {
  const group = /^src\/commands\/([^/]+)\//.exec(entryPoint ?? '')?.[1];
  return group === 'shared' ? undefined : group;
}
