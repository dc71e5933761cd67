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
 * The errors are the caller's (the CLI's UsageError and FilterError): this module has a chunk of
 * its own in the bundle, and importing errors.ts here would split that out of the start-up chunk,
 * one more file for every command to load.
 */
export interface FilterHooks {
  /** The filter does not compile: jq's message. */
  compileError(message: string): Error;
  /** jq stopped on a value: its message. */
  runtimeError(message: string): Error;
  /** What the filter prints itself on stderr (`debug`, `stderr`). */
  onMessage(line: string): void;
}

/** The filter, compiled: one that does not compile fails here, before anything is sent. */
export async function loadJsonFilter(filter: string, hooks: FilterHooks): Promise<JsonFilter> {
  const jq = await loadJqOnce();
  const probe = jq.raw('null', filter, ['-c']);
  if (probe.exitCode === 3 || /^jq: \d+ compile errors?$/m.test(probe.stderr)) {
    throw hooks.compileError(firstError(probe.stderr));
  }
  return {
    apply(text) {
      const run = jq.raw(text, filter, ['-c']);
      const failure = runtimeError(run.stderr, hooks);
      forward(run.stderr, hooks.onMessage);
      if (!failure) return { output: rawStrings(run.stdout) };
      // jq goes on with the next value after an error; crawl stops at it. Value by value, to keep
      // exactly what came before the error.
      let output = '';
      for (const value of values(text)) {
        const one = jq.raw(value, filter, ['-c']);
        output += rawStrings(one.stdout);
        const error = runtimeError(one.stderr, hooks);
        if (error) return { output, error };
      }
      return { output, error: failure };
    },
  };
}

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

/** -c output, a value a line, with each string line decoded: jq -r's bytes, gh --jq's rule. */
function rawStrings(stdout: string): string {
  if (stdout === '') return '';
  let out = '';
  for (const line of stdout.split('\n')) out += (line.startsWith('"') ? (JSON.parse(line) as string) : line) + '\n';
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
  if (lines.length <= 1) return [text];
  try {
    JSON.parse(lines[0] as string);
    return lines;
  } catch {
    return [text];
  }
}
