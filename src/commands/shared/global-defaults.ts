// The global flags as a run given none of them has them: commander's defaults (app/program.ts,
// through ./flags.ts) and what a run that builds no program gets (Tab's completions: app/run-cli.ts).
// Free of commander, so that such a run loads none of it; test/app/program.test.ts checks the two
// agree.
import type { GlobalOptions } from '../../deps.js';

export const DEFAULT_TIMEOUT_SECONDS = 30;

export const NO_GLOBAL_FLAGS: Readonly<GlobalOptions> = {
  json: false,
  jq: undefined,
  verbose: false,
  noInput: false,
  noColor: false,
  timeoutMs: DEFAULT_TIMEOUT_SECONDS * 1000,
  allowHttp: false,
  baseUrl: undefined,
  profile: undefined,
};
