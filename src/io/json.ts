import { prettyJson } from '../text/json-pretty.js';
import type { IO } from './io.js';
import type { TextWriter } from './redacting-writer.js';

// Machine output: one JSON document (--json), or one value a line (NDJSON streams). A document is
// written as received in a pipe and laid out for people on a terminal (whitespace only: the same
// tokens); a stream stays one value a line everywhere, so what reads it line by line still can.

/** The body as received, ending in exactly one newline. */
export function rawLine(raw: string): string {
  return raw.endsWith('\n') ? raw : raw + '\n';
}

/**
 * A JSON document as `io` shows it: pretty on a terminal (see io.ts `prettyJson`), else as
 * received with one newline. `text` is valid JSON: a body the API layer has parsed, or
 * JSON.stringify's.
 */
export function jsonDocument(io: Pick<IO, 'prettyJson'>, text: string): string {
  return io.prettyJson ? prettyJson(text) + '\n' : rawLine(text);
}

/** Every JSON document a command prints goes through here (or `jsonDocument` for a hand-over). */
export function writeJson(io: Pick<IO, 'prettyJson' | 'stdout'>, text: string): void {
  io.stdout.write(jsonDocument(io, text));
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
