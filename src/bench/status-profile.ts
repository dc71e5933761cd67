// Where a run spends its time: a command run with V8's CPU profiler, its samples sorted into a few
// parts by the code they fall in, the median of each over the runs; Node's floors profiled the same
// way beside them, so each part reads as what crawl adds. It says where the next cut is, next to
// the start-up pairs (which time whole processes).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './common.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export const PARTS = [
  'Node starting, and its built-in modules',
  'reading and compiling the bundle (code cache)',
  "crawl's own code: commander, settings, the command",
  'undici and its WebAssembly HTTP parser',
  'garbage collection',
  'waiting (the request, the exit)',
] as const;

type Part = (typeof PARTS)[number];

/** The part a sample belongs to, by the function it fell in. */
function partOf(node: ProfileNode): Part {
  const { url, functionName } = node.callFrame;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(idle)' || functionName === '(program)') return 'waiting (the request, the exit)';
  if (/load-bundle|bin\/crawl\.js/.test(url) || url === 'node:vm' || functionName === 'readFileUtf8') return 'reading and compiling the bundle (code cache)';
  if (/undici-|env-http-proxy-agent|wasm/.test(url) || /Wasm|wasm/.test(functionName)) return 'undici and its WebAssembly HTTP parser';
  if (url.includes('dist/bundle')) return "crawl's own code: commander, settings, the command";
  return 'Node starting, and its built-in modules';
}

function summarise(profile: Profile): Map<Part, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parts = new Map<Part, number>(PARTS.map((part) => [part, 0]));
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node) return;
    const part = partOf(node);
    parts.set(part, (parts.get(part) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return parts;
}

/** Medians in ms of each part of `node <args>` (a bin and its arguments, or a floor's script), over `runs` profiled runs. */
export async function profileRun(args: readonly string[], env: NodeJS.ProcessEnv, work: string, runs: number): Promise<Map<Part, number>> {
  const samples = new Map<Part, number[]>(PARTS.map((part) => [part, []]));
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(work, 'profile-'));
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '200', ...args], { env, stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`the profiled run of ${args.join(' ')} exited ${code}`))));
    });
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error(`the profiled run of ${args.join(' ')} wrote no profile`);
    const parts = summarise(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile);
    for (const [part, ms] of parts) samples.get(part)?.push(ms);
    rmSync(dir, { recursive: true, force: true });
  }
  return new Map(PARTS.map((part) => [part, median(samples.get(part) ?? [0])]));
}
