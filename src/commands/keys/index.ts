// The `keys` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Registration } from '../shared/exec.js';

export const commands: readonly Registration[] = [
  { name: 'create', build: async (exec) => (await import('./create.js')).command(exec('keysCreateRun')) },
  { name: 'list', build: async (exec) => (await import('./list.js')).command(exec('keysListRun')) },
  { name: 'revoke', build: async (exec) => (await import('./revoke.js')).command(exec('keysRevokeRun')) },
  { name: 'prune', build: async (exec) => (await import('./prune.js')).command(exec('keysPruneRun')) },
  { name: 'rotate', build: async (exec) => (await import('./rotate.js')).command(exec('keysRotateRun')) },
];
