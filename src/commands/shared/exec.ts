import type { Deps } from '../../deps.js';

/**
 * Runs a command's `run` with the run's Deps. Generic, so each registration is checked: the
 * options a command's flags map to are the options its `run` takes.
 */
export type Exec = <O>(run: (deps: Deps, options: O) => Promise<number | void>, options: O) => Promise<void>;
