// A whole buffer written to a file descriptor at once, without Node's stream: help goes so to a
// stdout that is not a terminal (io/system-streams.ts), and so does a help page the launcher
// prints from its cache (launch/help-cache.cts). CommonJS, which the launcher can require.
import { writeSync } from 'node:fs';

/** Writes all of `bytes` to `fd`; on a failure, how much went before it, and the error. */
export function writeAllSync(fd: number, bytes: Uint8Array): { written: number; error?: NodeJS.ErrnoException } {
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(fd, bytes, written);
  } catch (error) {
    return { written, error: error as NodeJS.ErrnoException };
  }
  return { written };
}
