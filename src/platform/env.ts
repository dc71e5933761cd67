/** Environment variables as the run was given them (the process's own, or a test's). */
export type Env = Readonly<Record<string, string | undefined>>;
