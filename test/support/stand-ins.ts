// A folder of stand-in commands for recipes run as shell scripts: the built crawl, and small
// scripts playing gh, glab or vault that keep what they were given (stdin, arguments, environment).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from './spawn.js';

export interface StandIns {
  /** The folder to put first on PATH. */
  bin: string;
  /** Adds `name`, a /bin/sh script with this body. */
  tool(name: string, body: string): void;
}

/** `<dir>/bin` with `crawl` (this checkout's built CLI) in it. */
export function standIns(dir: string): StandIns {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const tool = (name: string, body: string): void => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  tool('crawl', `exec '${process.execPath}' '${BIN}' "$@"`);
  return { bin, tool };
}
