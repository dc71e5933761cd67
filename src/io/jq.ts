// `--jq <filter>`: jq itself (jq 1.8, built to WebAssembly by jq-wasm), run on the JSON crawl writes,
// as `jq` runs on a stream of values. Loaded only when --jq is given.
//
// jq-wasm runs with -c, and strings are decoded here (what -r prints, as gh --jq does): its own -r
// output is trimmed at the end, which would lose a string's trailing line breaks.
import { jqWasmBytes } from './jq-wasm-bytes.js';

export interface FilterResult {
  /** The filter's outputs so far: strings raw, other values compact JSON, one a line. */
  output: string;
  /** jq's runtime error, when one stopped it: `output` is what came before it. */
  error?: Error;
}

export interface JsonFilter {
  /** Runs the filter on each JSON value in `text` (one document, or NDJSON lines), in order. */
  apply(text: string): FilterResult;
}

interface JqHandle {
  raw(input: string, query: string, flags?: string[]): { stdout: string; stderr: string; exitCode: number };
}

/**
 * The errors are the caller's (the CLI's UsageError, FilterError and FilterHalt): this module has a
 * chunk of its own in the bundle, and importing errors.ts here would split that out of the start-up
 * chunk, one more file for every command to load.
 */
export interface FilterHooks {
  /** The filter does not compile: jq's message. */
  compileError(message: string): Error;
  /** jq stopped on a value: its message. */
  runtimeError(message: string): Error;
  /**
   * The filter stopped the program (`halt`, `halt_error`): jq exits with `exitCode` once it has
   * written `stderr` (halt_error's message, after any debug line before it), and reads no more.
   */
  halted(exitCode: number, stderr: string): Error;
  /** What the filter prints itself on stderr (`debug`, `stderr`). */
  onMessage(line: string): void;
}

/**
 * Written after each value's outputs (`(filter), END`): a value whose outputs do not end with it
 * stopped inside the filter, by an error or a halt. A NUL and a random part: no string crawl filters
 * can print it by chance, and a server cannot guess it.
 */
const END = JSON.stringify(`\u0000crawl-end-${Math.random().toString(36).slice(2)}`);

/**
 * The filter as a part of a larger one. The line breaks end a comment on its last line (one that
 * ends in a backslash goes on to the next line in jq 1.8); a `def` may stand inside parentheses.
 */
const inner = (filter: string): string => `(${filter}\n\n)`;

/** The filter, compiled: one that does not compile fails here, before anything is sent. */
export async function loadJsonFilter(filter: string, hooks: FilterHooks): Promise<JsonFilter> {
  const jq = await loadJqOnce();
  // Compiled, never run: run on some input, a filter could halt, loop or print before anything
  // was asked of the service.
  const check = jq.raw('null', `if false then ${inner(filter)} else empty end`, ['-n', '-c']);
  if (COMPILE_FAILED.test(check.stderr)) {
    // Its message and position are told for the filter as the user wrote it (compiled alone, it
    // fails the same way, so it runs no more than above).
    const alone = jq.raw('null', filter, ['-n', '-c']);
    throw hooks.compileError(firstError(COMPILE_FAILED.test(alone.stderr) ? alone.stderr : check.stderr));
  }
  const marked = `${inner(filter)}, ${END}`;
  const run = (text: string): Run => {
    const r = jq.raw(text, marked, ['-c']);
    const lines = r.stdout === '' ? [] : r.stdout.split('\n');
    return { ...r, lines, ended: lines.filter((line) => line === END).length };
  };
  return {
    apply(text) {
      const all = run(text);
      const failed = all.stderr.split('\n').some((line) => FAILURE.test(line));
      if (!failed && all.ended === values(text).length) {
        forward(all.stderr, hooks.onMessage);
        return { output: rawStrings(all.lines) };
      }
      if (!failed) return { output: rawStrings(all.lines), error: hooks.halted(all.exitCode, all.stderr) };
      // An error: jq goes on with the next value, crawl stops at this one. Value by value, to keep
      // exactly what came before it, and only the messages printed until then.
      let output = '';
      for (const value of values(text)) {
        const one = run(value);
        output += rawStrings(one.lines);
        const error = runtimeError(one.stderr, hooks);
        if (error) {
          forward(one.stderr, hooks.onMessage);
          return { output, error };
        }
        if (one.ended === 0) return { output, error: hooks.halted(one.exitCode, one.stderr) };
        forward(one.stderr, hooks.onMessage);
      }
      return { output, error: runtimeError(all.stderr, hooks) };
    },
  };
}

interface Run {
  stderr: string;
  exitCode: number;
  /** stdout's lines, END among them. */
  lines: string[];
  /** How many values the filter went through to their end. */
  ended: number;
}

/** jq's verdict on a filter it cannot compile. */
const COMPILE_FAILED = /^jq: \d+ compile errors?$/m;

let loaded: Promise<JqHandle> | undefined;

/** jq, compiled and instantiated once a process: a run compiles one filter, but tests run many in one process. */
function loadJqOnce(): Promise<JqHandle> {
  loaded ??= (async () => {
    const [module, wasmBinary] = await Promise.all([import('jq-wasm'), jqWasmBytes()]);
    // The bundle takes jq-wasm's CommonJS build, whose exports an import() sees under `default`.
    const { loadJq } = (module as { default?: typeof module }).default ?? module;
    return loadJq(wasmBinary ? { wasmBinary } : {});
  })();
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}

/** -c output, a value a line (END left out), with each string line decoded: jq -r's bytes, gh --jq's rule. */
function rawStrings(lines: string[]): string {
  let out = '';
  for (const line of lines) {
    if (line === END) continue;
    out += (line.startsWith('"') ? (JSON.parse(line) as string) : line) + '\n';
  }
  return out;
}

/** jq's own failures: an error the filter raised, or input it could not parse. */
const FAILURE = /^jq: (error|parse error)\b/;

function runtimeError(stderr: string, hooks: FilterHooks): Error | undefined {
  const line = stderr.split('\n').find((l) => FAILURE.test(l));
  // `(at <stdin>:N)` counts lines of what crawl fed jq, which the user never saw.
  return line === undefined ? undefined : hooks.runtimeError(line.replace(/ \(at [^)]*\)/, ''));
}

/** What the filter printed on purpose (debug, stderr): every stderr line that is not jq's error. */
function forward(stderr: string, onMessage: (line: string) => void): void {
  if (stderr === '') return;
  for (const line of stderr.split('\n')) if (line !== '' && !FAILURE.test(line)) onMessage(line);
}

function firstError(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.startsWith('jq: error')) ?? stderr.split('\n')[0] ?? 'jq failed';
  return line.replace(/^jq: error: /, '').replace(/:$/, '');
}

/**
 * The JSON values of `text`, each as its own text: what crawl writes is one document (pretty or
 * not) or NDJSON, a value a line; a first line that is a whole value tells them apart.
 */
function values(text: string): string[] {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (lines.length === 0) return [];
  if (lines.length === 1) return [text];
  try {
    JSON.parse(lines[0] as string);
    return lines;
  } catch {
    return [text];
  }
}
