import type { TextWriter } from './redacting-writer.js';

// Machine output: the service's body as received (--json), or one value a line (NDJSON streams).

/** The body as received, ending in exactly one newline. */
export function rawLine(raw: string): string {
  return raw.endsWith('\n') ? raw : raw + '\n';
}

export function writeRaw(stdout: TextWriter, raw: string): void {
  stdout.write(rawLine(raw));
}

/**
 * One value a line for streams: the body as received, with its line breaks taken out. In JSON
 * that parsed, a line break can only be white space between tokens (strings escape theirs), so
 * this compacts it without re-serialising: numbers keep their digits (1.0, 2^64), and a body
 * nested thousands deep cannot overflow JSON.stringify's stack.
 */
export function writeNdjson(stdout: TextWriter, raw: string): void {
  stdout.write(raw.trim().replace(/[\r\n]+/g, '') + '\n');
}
