import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync } from 'node:fs';
import { join } from 'node:path';

/**
 * FIFOs for a file's tests, `count` of them made by one `mkfifo` in `dir` (call it before the
 * tests run), each moved into place (a rename, same file system) where a test needs one: a spawn
 * costs the test worker far more CPU than a rename (the kernel copies the worker's memory map).
 */
export function fifoSpool(dir: string, count: number): (path: string) => void {
  mkdirSync(dir, { recursive: true });
  const spool = mkdtempSync(join(dir, 'fifos-'));
  const fifos = Array.from({ length: count }, (_, i) => join(spool, `fifo-${i}`));
  execFileSync('mkfifo', fifos);
  return (path) => {
    const fifo = fifos.pop();
    if (fifo === undefined) throw new Error(`the tests asked for more than the ${count} FIFOs made for them`);
    renameSync(fifo, path);
  };
}
