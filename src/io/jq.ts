// `--jq <filter>`: jq itself (jq 1.8, built to WebAssembly by jq-wasm), run on the JSON crawl writes,
// as `jq` runs on a stream of values. Loaded only when --jq is given.
//
// jq-wasm runs with -c, and strings are decoded here (what -r prints, as gh --jq does): its own -r
// output is trimmed at the end, which would lose a string's trailing line breaks.
import { jqWasmBytes } from './jq-wasm-bytes.js';

export interface FilterResult {
  /** The filter's outputs so far: strings raw, other values compact JSON, one a line. */
  output: string;
  /** jq's runtime error or the filter's halt, when one stopped it: `output` is what came before it. */
  error?: Error;
}

export interface JsonFilter {
  /** Runs the filter on each JSON value in `text` (one document, or NDJSON lines), in order. */
  apply(text: string): FilterResult;
  /**
   * Whether the filter's output on `text` holds `secret`, run quietly (what the filter prints on
   * stderr is dropped, and a halt stops nothing): undefined when the filter stops on `text`.
   */
  carries(text: string, secret: string): boolean | undefined;
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
  /** What the filter prints itself on stderr (`debug`, `stderr`): one or more lines, as jq printed them. */
  onMessage(text: string): void;
}

/**
 * Written before and after each run of the filter (`BEGIN, (filter), END`): a run whose outputs
 * are not followed by END stopped inside the filter, by an error (jq then goes on with the next
 * value) or a halt (jq stops). A run that reads more values itself (`input`) is still one run. A
 * NUL and a random part: no string crawl filters can print them by chance, and a server cannot
 * guess them.
 */
const nonce = Math.random().toString(36).slice(2);
const BEGIN = JSON.stringify(`\u0000crawl-begin-${nonce}`);
const END = JSON.stringify(`\u0000crawl-end-${nonce}`);

/**
 * Input jq cannot parse. jq compiles its program before it reads any input, so a filter given this
 * is compiled and never run: nothing it would do (halt, print, loop) happens before crawl has an
 * answer to run it on.
 */
const NOT_JSON = ']';

/** The filter, compiled: one that does not compile fails here, before anything is sent. */
export async function loadJsonFilter(given: string, hooks: FilterHooks): Promise<JsonFilter> {
  const jq = await loadJqOnce();
  // jq runs an empty program as `.` (jq-wasm calls it no program at all).
  const filter = given.trim() === '' ? '.' : given;
  const check = jq.raw(NOT_JSON, filter, ['-c']);
  if (COMPILE_FAILED.test(check.stderr)) throw hooks.compileError(firstError(check.stderr));
  // The filter compiles on its own, so in parentheses it is the same program; the line breaks end
  // a comment on its last line (one that ends in a backslash goes on to the next line). A filter
  // that begins with `module` or `import` cannot stand in parentheses: it runs unmarked.
  const marked = `${BEGIN}, (${filter}\n\n), ${END}`;
  // Whether it does is learnt from the first run rather than from a run of its own: each run of jq
  // compiles its whole library first, the larger part of what a short filter costs.
  let canMark: boolean | undefined;
  const apply = (text: string): FilterResult => {
    if (canMark !== false) {
      const run = jq.raw(text, marked, ['-c']);
      canMark ??= !markingFailed(run);
      if (canMark) return applyMarked(run, hooks);
    }
    return applyPlain(jq.raw(text, filter, ['-c']), hooks);
  };
  return {
    apply,
    carries: (text, secret) => {
      const run = jq.raw(text, filter, ['-c']);
      if (run.exitCode !== 0 || firstFailure(run.stderr) !== undefined) return undefined;
      return rawStrings(linesOf(run)).includes(secret);
    },
  };
}

interface JqRun {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** The -c output's lines: a value (or a mark) each. */
function linesOf(run: JqRun): string[] {
  return run.stdout === '' ? [] : run.stdout.split('\n');
}

/** What a marked run printed up to where the filter first stopped, and why it stopped. */
function applyMarked(run: JqRun, hooks: FilterHooks): FilterResult {
  const lines = linesOf(run);
  // The BEGIN of the first run that has no END.
  let open = -1;
  let stopped = -1;
  for (const [i, line] of lines.entries()) {
    if (line === BEGIN) {
      if (open !== -1) {
        stopped = open;
        break;
      }
      open = i;
    } else if (line === END) {
      open = -1;
    }
  }
  if (stopped === -1) stopped = open;
  if (stopped === -1) {
    // Every run ended; jq may still have stopped on input it could not parse.
    const failure = firstFailure(run.stderr);
    if (failure !== undefined) return { output: rawStrings(lines), error: stoppedBy(run.stderr, failure, hooks) };
    forward(run.stderr, hooks.onMessage);
    return { output: rawStrings(lines) };
  }
  const next = lines.indexOf(BEGIN, stopped + 1);
  const output = rawStrings(next === -1 ? lines : lines.slice(0, next));
  const failure = firstFailure(run.stderr);
  // jq goes on with the next value after an error, never after a halt; halt_error's code is the
  // filter's (5 when it gives none, as an error's), its message the filter's text.
  const error = next !== -1 || (failure !== undefined && run.exitCode === 5);
  if (!error) return { output, error: hooks.halted(run.exitCode, run.stderr) };
  return { output, error: stoppedBy(run.stderr, failure, hooks) };
}

/**
 * A filter jq cannot mark (module directives): an error or halt_error is known, but not at which
 * value, so the batch's whole output stands before it; a `halt` (exit 0) is not known at all.
 */
function applyPlain(run: JqRun, hooks: FilterHooks): FilterResult {
  const lines = linesOf(run);
  const failure = firstFailure(run.stderr);
  if (failure !== undefined) return { output: rawStrings(lines), error: stoppedBy(run.stderr, failure, hooks) };
  if (run.exitCode !== 0) return { output: rawStrings(lines), error: hooks.halted(run.exitCode, run.stderr) };
  forward(run.stderr, hooks.onMessage);
  return { output: rawStrings(lines) };
}

/** jq's runtime error, after what the filter printed on stderr before it (not what came after). */
function stoppedBy(stderr: string, failure: Failure | undefined, hooks: FilterHooks): Error {
  if (failure === undefined) return hooks.runtimeError('jq: error');
  forward(stderr.slice(0, failure.index), hooks.onMessage);
  return hooks.runtimeError(failure.message);
}

interface Failure {
  index: number;
  message: string;
}

/**
 * jq's own failure (an error the filter raised, or input it could not parse), wherever it stands:
 * after `stderr` output, which ends in no line break, it begins mid-line.
 */
function firstFailure(stderr: string): Failure | undefined {
  const match = /jq: (?:error|parse error)\b[^\n]*/.exec(stderr);
  if (match === null) return undefined;
  // `(at <stdin>:N)` counts lines of what crawl fed jq, which the user never saw.
  let message = match[0].replace(/ \(at [^)]*\)/, '');
  // jq-wasm's words for jq's "No more inputs".
  if (message === 'jq: error: break') message = 'jq: error: No more inputs (`input` and `inputs` read within what crawl gives jq at once: the document, or one batch of a stream)';
  return { index: match.index, message };
}

/** jq's verdict on a filter it cannot compile. */
const COMPILE_FAILED = /^jq: \d+ compile errors?$/m;

/**
 * Whether a marked run did not compile (the filter, which does on its own, cannot stand in
 * parentheses): jq's compile errors, its exit code for them, and nothing printed. A marked program
 * that compiles prints BEGIN before the filter runs on the first value, so nothing the filter
 * prints itself (on stderr, from data) can pass for this.
 */
function markingFailed(run: JqRun): boolean {
  return run.stdout === '' && run.exitCode === 3 && COMPILE_FAILED.test(run.stderr);
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

/** -c output, a value a line (the marks left out), with each string line decoded: jq -r's bytes, gh --jq's rule. */
function rawStrings(lines: string[]): string {
  let out = '';
  for (const line of lines) {
    if (line === BEGIN || line === END) continue;
    out += (line.startsWith('"') ? (JSON.parse(line) as string) : line) + '\n';
  }
  return out;
}

/** What the filter printed on purpose (debug, stderr), as jq printed it. */
function forward(stderr: string, onMessage: (text: string) => void): void {
  const text = stderr.replace(/\n+$/, '');
  if (text !== '') onMessage(text);
}

function firstError(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.startsWith('jq: error')) ?? stderr.split('\n')[0] ?? 'jq failed';
  return line.replace(/^jq: error: /, '').replace(/:$/, '');
}
