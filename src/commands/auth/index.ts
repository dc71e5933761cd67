// The `auth` group: its commands, each with its typed flags, and the work each runs (commands/work.ts).
import type { Registration } from '../shared/exec.js';

export const commands: readonly Registration[] = [
  { name: 'login', build: async (exec) => (await import('./login.js')).command(exec('authLoginRun')) },
  { name: 'status', build: async (exec) => (await import('./status.js')).command(exec('authStatusRun')) },
  { name: 'token', build: async (exec) => (await import('./token.js')).command(exec('authTokenRun')) },
  { name: 'logout', build: async (exec) => (await import('./logout.js')).command(exec('authLogoutRun')) },
];
