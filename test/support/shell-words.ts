import { spawnSync } from 'node:child_process';

/**
 * The words a real POSIX shell makes of each line (as `printf` receives them), never running
 * them: one `sh` for all the lines, each line's words preceded by their count.
 */
export function wordsOfEach(lines: string[]): string[][] {
  const script = lines.map((line) => `set -- ${line}\nprintf '%s\\0' "$#"; for w in "$@"; do printf '%s\\0' "$w"; done\n`).join('');
  const r = spawnSync('sh', ['-c', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sh failed on ${JSON.stringify(lines)}: ${r.stderr}`);
  const fields = r.stdout.split('\0');
  const out: string[][] = [];
  let at = 0;
  for (let i = 0; i < lines.length; i++) {
    const count = Number(fields[at++]);
    out.push(fields.slice(at, at + count));
    at += count;
  }
  return out;
}

export function wordsOf(line: string): string[] {
  return wordsOfEach([line])[0] ?? [];
}
