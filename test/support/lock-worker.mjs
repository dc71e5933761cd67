// One writer of the lock hammer (test/process/races.test.ts), a process of its own: takes the
// built config lock on one file again and again, appends its name to the file's `writes`, and now
// and then "dies" holding it (leaves the lock as a killed process would), so the others keep
// racing to take a stale lock over. Prints one JSON line: its overlaps and retries.
// argv: <dist lock module> <config file> <id> <rounds> <dead pid> [stop-mid-write]
// With `stop-mid-write`, it takes the lock once, writes half of its temp file, prints "mid-write"
// and waits there for good: the moment for the test to kill it (-9).
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { setInterval } from 'node:timers';
import { pathToFileURL } from 'node:url';

const [module, config, id, roundsText, deadText, mode] = process.argv.slice(2);
const { ConfigLock, lockPathFor } = await import(pathToFileURL(module).href);

if (mode === 'stop-mid-write') {
  await ConfigLock.acquire(config);
  const doc = JSON.parse(readFileSync(config, 'utf8'));
  doc.writes = [...(doc.writes ?? []), `${id}-killed`];
  const text = JSON.stringify(doc);
  writeFileSync(`${config}.${id}.tmp`, text.slice(0, text.length >> 1));
  process.stdout.write('mid-write\n');
  setInterval(() => undefined, 60_000);
  await new Promise(() => undefined);
}

const rounds = Number(roundsText);
const lockPath = lockPathFor(config);
// Exists exactly while someone is between taking the lock and giving it up: a second holder's
// exclusive create fails on it.
const inside = `${config}.inside`;
let overlaps = 0;
let retries = 0;

for (let round = 0; round < rounds; round++) {
  let lock;
  for (;;) {
    try {
      lock = await ConfigLock.acquire(config);
      break;
    } catch (error) {
      // Gave up waiting or was told "busy": nothing was written; a user would try again.
      if (error?.name !== 'CrawlError') throw error;
      retries++;
    }
  }
  let mine = false;
  try {
    closeSync(openSync(inside, 'wx'));
    mine = true;
  } catch {
    overlaps++;
  }
  const doc = JSON.parse(readFileSync(config, 'utf8'));
  doc.writes.push(`${id}-${round}`);
  writeFileSync(`${config}.${id}.tmp`, JSON.stringify(doc));
  renameSync(`${config}.${id}.tmp`, config);
  if (mine) unlinkSync(inside);
  if (round % 3 === 1 && round < rounds - 1) {
    // Killed after writing, before releasing: what is left is a lock whose pid no longer runs.
    writeFileSync(`${lockPath}.${id}.tmp`, JSON.stringify({ pid: Number(deadText), host: hostname(), token: `dead-${id}-${round}` }));
    renameSync(`${lockPath}.${id}.tmp`, lockPath);
  } else {
    await lock.release();
  }
}
process.stdout.write(JSON.stringify({ id, overlaps, retries }) + '\n');
