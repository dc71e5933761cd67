// Entry point of the sandbox: a local, in-memory server that behaves like the crawl service.
import { SandboxServer } from './server.js';
import type { Sandbox, SandboxOptions } from './types.js';

export type {
  Fault,
  FaultKind,
  JobSpec,
  PagesShape,
  RequestLogEntry,
  RequestRecord,
  Sandbox,
  SandboxClock,
  SandboxJob,
  SandboxOptions,
} from './types.js';
export { DEMO_JOB_IDS } from './seed.js';
export { resetSandbox, runSandbox, type ResetOptions, type SandboxCommandOptions } from './cli.js';

export async function startSandbox(options?: SandboxOptions): Promise<Sandbox> {
  return SandboxServer.launch(options);
}
