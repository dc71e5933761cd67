// The bundle's pack (dist/bundle/bundle.pack, src/launch/load-bundle.cts) read as the tests look at
// it: each file and asset it holds, by the name its index gives.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './spawn.js';

/** What the pack holds, by name (a module packed into another file is indexed by that file: only the files themselves here). */
export function packedFiles(): Map<string, string> {
  const pack = readFileSync(join(ROOT, 'dist', 'bundle', 'bundle.pack'));
  const first = pack.indexOf(10);
  const second = pack.indexOf(10, first + 1);
  const index = JSON.parse(pack.toString('utf8', first + 1, second)) as Record<string, [number, number] | string>;
  const data = pack.subarray(second + 1);
  const files = Object.entries(index).filter((entry): entry is [string, [number, number]] => Array.isArray(entry[1]));
  return new Map(files.map(([file, [offset, length]]) => [file, data.toString('utf8', offset, offset + length)]));
}
