export declare const INPUTS: readonly string[];
export declare const OUTPUTS: readonly string[];
/** Why the build in `root` is out of date, or undefined when it is not. */
export declare function staleBecause(root: string): string | undefined;
