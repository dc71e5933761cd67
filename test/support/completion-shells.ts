// Real shells completing a crawl command line, as a user meets them: the built crawl first on PATH
// (a wrapper running bin/crawl.js), a config with two profiles, a folder of files to complete, and
// a stand-in command on PATH for the values that are commands. zsh and bash run interactively in a
// pseudo-terminal (util-linux `script`): the line is typed with a Tab at its end, then Ctrl-T saves
// the line as it then stands. fish answers `complete -C`, its own completion of a line.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/harness.js';
import { BIN, cleanEnv } from '../support/spawn.js';
import { crawl } from './harness.js';
import { requireTools } from './tools.js';

export interface CompletionWorld {
  dir: string;
  /** The folder the shells run in: pages.ndjson, pages-old.ndjson, notes.txt, dist/, `my exports/`. */
  files: string;
  /** A command on PATH that only the shells' command completion can offer. */
  storeCommand: string;
  /** The environment of a shell: PATH with crawl first, the config, no job history. */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  /** `crawl completion <shell>`, written to a file. */
  script(shell: 'bash' | 'zsh' | 'fish'): Promise<string>;
  cleanup(): void;
}

export function completionWorld(prefix: string): CompletionWorld {
  const tmp = tempDir(prefix);
  const bin = join(tmp.dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'crawl'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  const storeCommand = 'store-secret-stub';
  writeFileSync(join(bin, storeCommand), '#!/bin/sh\nexit 0\n');
  for (const name of ['crawl', storeCommand]) chmodSync(join(bin, name), 0o755);
  mkdirSync(join(tmp.dir, 'config'));
  writeFileSync(join(tmp.dir, 'config', 'config.json'), JSON.stringify({ profiles: { default: {}, ci: {} } }), { mode: 0o600 });
  const files = join(tmp.dir, 'files');
  mkdirSync(files);
  for (const name of ['pages.ndjson', 'pages-old.ndjson', 'notes.txt']) writeFileSync(join(files, name), '');
  for (const folder of ['dist', 'my exports']) {
    mkdirSync(join(files, folder));
    writeFileSync(join(files, folder, 'site.ndjson'), '');
  }
  return {
    dir: tmp.dir,
    files,
    storeCommand,
    env: (extra = {}) =>
      cleanEnv({
        CRAWL_CONFIG_DIR: join(tmp.dir, 'config'),
        CRAWL_JOB_HISTORY: 'off',
        TERM: 'dumb',
        // As any shell has it: a shell started without it spends most of a second first.
        SHLVL: '1',
        ...extra,
        PATH: `${bin}:${process.env.PATH ?? ''}`,
      }),
    script: async (shell) => {
      const path = join(tmp.dir, `crawl.${shell}`);
      const r = await crawl(['completion', shell], { env: {} });
      if (r.code !== 0) throw new Error(`crawl completion ${shell} exited ${r.code}: ${r.stderr}`);
      writeFileSync(path, r.stdout);
      return path;
    },
    cleanup: tmp.cleanup,
  };
}

/**
 * Runs `work` when fewer than `atOnce` others run: each shell starts a crawl process at each Tab,
 * and two loaded cores would otherwise start a score of them together.
 */
export function limiter(atOnce: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (work) => {
    // A run that ends hands its place to the next one waiting.
    if (running < atOnce) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

export interface PtyTab {
  /** The line after the shell applied what it offered. */
  line: string;
  /** Everything the terminal showed, from the shell's start. */
  screen: string;
  /** What the shell showed before its first prompt (start-up errors land here). */
  startup: string;
}

/** The prompt every rc file of these tests sets. */
export const PROMPT = 'READY$ ';

/**
 * Types `line`, a Tab and Ctrl-T into an interactive shell started by `command` in a pty. The
 * shell's rc must print PROMPT, bind Ctrl-T to write the line to `$TAB_OUT.line` and print
 * LINE-SAVED.
 */
export function ptyTab(command: string, line: string, options: { cwd: string; env: NodeJS.ProcessEnv; out: string }): Promise<PtyTab> {
  requireTools('script');
  return new Promise((resolve, reject) => {
    const shell = spawn('script', ['-qefc', command, '/dev/null'], { env: { ...options.env, TAB_OUT: options.out }, cwd: options.cwd });
    let screen = '';
    let startup = '';
    let step: 'starting' | 'typed' | 'leaving' = 'starting';
    shell.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString();
      if (step === 'starting' && screen.includes(PROMPT)) {
        step = 'typed';
        startup = screen.slice(0, screen.indexOf(PROMPT));
        shell.stdin.write(`${line}\t\x14`);
      } else if (step === 'typed' && screen.includes('LINE-SAVED')) {
        step = 'leaving';
        // Ctrl-E first: fish's Ctrl-U keeps what is right of the cursor.
        shell.stdin.write('\x05\x15exit\r');
      }
    });
    shell.stderr.on('data', (chunk: Buffer) => {
      screen += chunk.toString();
    });
    shell.on('error', reject);
    shell.on('close', (code, signal) => {
      if (step !== 'leaving' || code !== 0) {
        reject(new Error(`${command} ended (${code ?? signal}) before the line was saved:\n${screen}`));
        return;
      }
      resolve({ line: readFileSync(`${options.out}.line`, 'utf8'), screen, startup });
    });
  });
}
