import type { Deps } from '../../deps.js';
import type * as work from '../work.js';

/** The work of every command by its entry point's name (commands/work.ts): a type, so declaring a command loads none of it. */
export type Work = typeof work;
export type WorkName = keyof Work;
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
