// Spawned runs of the built CLI that say what only a process shows: whether it loaded the bundle
// (bin/crawl.js answers some lines from the pack alone), and what it does when stdout is a full disk.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './harness.js';
import { BIN, cleanEnv } from './spawn.js';

export interface NotedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Whether the run loaded the bundle: node:vm compiles it, and nothing else loads node:vm. */
  bundle: boolean;
}

let runs = 0;

/** `crawl <args>` with `cache` as its cache folder, in a terminal when `tty`; `dir` holds what the run reports. */
export async function runNotingBundle(args: string[], cache: string, dir: string, options: { tty?: boolean } = {}): Promise<NotedRun> {
  const out = join(dir, `modules-${process.pid}-${++runs}.txt`);
  const reporter = join(dir, `report-${process.pid}-${runs}.cjs`);
  writeFileSync(reporter, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`);
  const r = await runCli(args, { process: true, ...(options.tty ? { tty: true } : {}), env: { XDG_CACHE_HOME: cache, NODE_OPTIONS: `--require ${reporter}` } });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr, bundle: readFileSync(out, 'utf8').split('\n').includes('NativeModule vm') };
}

/** `crawl <args>` writing to /dev/full: its exit code and what it said on stderr. */
export async function runIntoFullDisk(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync('/dev/full', 'w');
  try {
    return await new Promise((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), stdio: ['ignore', fd, 'pipe'] });
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('close', (code) => resolve({ code, stderr }));
    });
  } finally {
    closeSync(fd);
  }
}
