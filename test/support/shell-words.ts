import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

/**
 * The words a real POSIX shell makes of each line (as `printf` receives them), never running them.
 *
 * One `sh` serves the worker, reading requests on its stdin: a spawn costs the test worker tens of
 * ms of CPU (the kernel copies its whole memory map), a request to a shell already running well
 * under one. A request's lines are `eval`ed in turn in a subshell of their own: they leave no state
 * behind, and a line the shell cannot parse (an unclosed quote) fails its request, with the shell's
 * message, instead of swallowing the requests after it.
 */
export function wordsOfEach(lines: string[]): Promise<string[][]> {
  const sh = (shell ??= startShell());
  return new Promise((resolve, reject) => {
    sh.pending.push({ lines, resolve, reject });
    const each = lines.map((line) => `eval 'set -- '${singleQuoted(line)} || exit; printf 'n=%s\\0' "$#"; for w in "$@"; do printf '%s\\0' "$w"; done\n`);
    sh.child.stdin.write(`(\n${each.join('')}); printf 's=%s\\0' "$?"\n`);
  });
}

/**
 * The line as one word for sh: in single quotes, each ' closed, escaped and reopened. The harness's
 * own, not src/text/shell.ts's shellQuote, which the tests that call this check.
 */
function singleQuoted(line: string): string {
  return `'${line.replaceAll("'", "'\\''")}'`;
}

/** The words of one line. */
export async function wordsOf(line: string): Promise<string[]> {
  return (await wordsOfEach([line]))[0] ?? [];
}

interface Request {
  lines: string[];
  resolve: (words: string[][]) => void;
  reject: (error: Error) => void;
}

interface Shell {
  child: ChildProcessWithoutNullStreams;
  pending: Request[];
}

let shell: Shell | undefined;

function startShell(): Shell {
  const child = spawn('sh', [], { stdio: 'pipe' });
  const sh: Shell = { child, pending: [] };
  // The worker's other handles keep it alive while a test waits; the shell must not keep it alive after.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref(): void }).unref();
  let stderr = '';
  let fields: string[] = [];
  let partial = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    const parts = (partial + text).split('\0');
    partial = parts.pop() ?? '';
    fields.push(...parts);
    // A request's answer: `n=<count>` and the words, for each line, then `s=<status>`. A line that
    // failed, or ended the subshell before its words (an `exit` in it), leaves its words out.
    for (;;) {
      // Walked by the counts: a word may itself read `s=...`.
      const words: string[][] = [];
      let at = 0;
      while (at < fields.length && (fields[at] as string).startsWith('n=')) {
        const count = Number((fields[at] as string).slice(2));
        if (at + 1 + count > fields.length) return;
        words.push(fields.slice(at + 1, at + 1 + count));
        at += 1 + count;
      }
      const status = fields[at];
      if (status === undefined) return;
      fields = fields.slice(at + 1);
      const request = sh.pending.shift();
      if (request === undefined) continue;
      if (status === 's=0' && words.length === request.lines.length) request.resolve(words);
      else request.reject(new Error(`sh failed on ${JSON.stringify(request.lines)} (${status}, ${words.length} lines read): ${stderr}`));
      stderr = '';
    }
  });
  const fail = (why: string): void => {
    if (shell === sh) shell = undefined;
    for (const request of sh.pending.splice(0)) request.reject(new Error(`sh ${why} before reading ${JSON.stringify(request.lines)}: ${stderr}`));
  };
  child.on('error', (error) => fail(`failed (${error.message})`));
  // A write to a shell that has gone fails its requests through 'exit'.
  child.stdin.on('error', () => undefined);
  child.on('exit', (code, signal) => fail(`exited (${signal ?? code})`));
  return sh;
}
