import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

/**
 * The words a real POSIX shell makes of a line (as `printf` receives them), never running them.
 *
 * One `sh` serves the worker, read its lines on stdin: a spawn costs the test worker tens of ms
 * of CPU (the kernel copies its whole memory map), a line sent to a shell already running well
 * under one. Each line is `eval`ed in a subshell: it leaves no state behind, and a line the shell
 * cannot parse (an unclosed quote) fails on its own, with the shell's message, instead of
 * swallowing the lines after it.
 */
export function wordsOf(line: string): Promise<string[]> {
  const sh = (shell ??= startShell());
  return new Promise((resolve, reject) => {
    sh.pending.push({ line, resolve, reject });
    const quoted = `'${line.replace(/'/g, `'\\''`)}'`;
    sh.child.stdin.write(`(eval 'set -- '${quoted} && { printf 'n=%s\\0' "$#"; for w in "$@"; do printf '%s\\0' "$w"; done; }); printf 's=%s\\0' "$?"\n`);
  });
}

/** The words of each line, in order. */
export function wordsOfEach(lines: string[]): Promise<string[][]> {
  return Promise.all(lines.map(wordsOf));
}

interface Request {
  line: string;
  resolve: (words: string[]) => void;
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
    // A request's answer: `n=<count>`, the words, `s=0`; or only `s=<status>` when the line failed
    // (or ended the subshell before its words, as an `exit` in it does).
    for (;;) {
      const head = fields[0];
      if (head === undefined) return;
      const count = head.startsWith('n=') ? Number(head.slice(2)) : 0;
      const end = head.startsWith('n=') ? count + 1 : 0;
      const status = fields[end];
      if (status === undefined) return;
      const words = fields.slice(1, end);
      fields = fields.slice(end + 1);
      const request = sh.pending.shift();
      if (request === undefined) continue;
      if (status === 's=0' && end > 0) request.resolve(words);
      else request.reject(new Error(`sh failed on ${JSON.stringify(request.line)} (${status}): ${stderr}`));
      stderr = '';
    }
  });
  const fail = (why: string): void => {
    if (shell === sh) shell = undefined;
    for (const request of sh.pending.splice(0)) request.reject(new Error(`sh ${why} before reading ${JSON.stringify(request.line)}: ${stderr}`));
  };
  child.on('error', (error) => fail(`failed (${error.message})`));
  // A write to a shell that has gone fails its requests through 'exit'.
  child.stdin.on('error', () => undefined);
  child.on('exit', (code, signal) => fail(`exited (${signal ?? code})`));
  return sh;
}
