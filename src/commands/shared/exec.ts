import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Deps } from '../../deps.js';
import type * as workModule from '../work.js';

/** How each entry point is loaded (commands/work.ts): a type, so declaring a command loads none of it. */
type Loaders = typeof workModule.work;
export type WorkName = keyof Loaders;
/** The work of every command by its entry point's name. */
export type Work = { [N in WorkName]: Awaited<ReturnType<Loaders[N]>> };
/** The options an entry point takes: what its command's flags must map to. */
export type OptionsOf<N extends WorkName> = Parameters<Work[N]>[1];
/** An entry point as the run calls it. */
export type Entry<N extends WorkName> = (deps: Deps, options: OptionsOf<N>) => Promise<number>;

/**
 * A command's registration: exec('authLogoutRun') is the function its flags' mapping calls, which
 * builds the run's Deps, loads the work and runs the entry point of that name. Generic, so each
 * registration is checked: the options a command's flags map to are the options its work takes.
 */
export type Exec = <N extends WorkName>(name: N) => (options: OptionsOf<N>) => Promise<void>;

/**
 * A command as its group (or the root) registers it: its name, and how to build it, with its
 * flags and action, from its module, loaded then. A run builds only the commands it names; the
 * others are listed from the command table (commands/command-table.ts) without loading anything.
 */
export interface Registration {
  /** As its module's `new Command('<name>')` has it. */
  name: string;
  build(exec: Exec): Promise<CommandUnknownOpts>;
  /** What `crawl <group> <words>` runs when the first word is no command of the group. */
  isDefault?: true;
  /** Left out of help and completion. */
  hidden?: true;
}

/** What help lists of a command it has not built, and what a command line may call it. */
export interface CommandFacts {
  aliases: readonly string[];
  /** As a group's help lists it (its summary, else its description). */
  description: string;
  /** Its name, arguments and `[options]`, as a group's help lists it. */
  term: string;
}
