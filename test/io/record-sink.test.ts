// The output file of `job pages` is closed once: a second close of the same number would close
// whatever the process opened since (in an embedding process, another run's socket or file).
// Every close of a descriptor is counted (fs.close and fs.closeSync, which the sink and its
// stream use), so a second close shows whatever the timing, not only when it wins a race. The
// spies are taken off (and node:fs's named exports synced back) before each test ends: nothing of
// them reaches the files that run after this one in the same worker. A file that was there is
// emptied only by a close that ends the export, never by one an interrupt came before.
import fs, { closeSync, fstatSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { beginOutputFile, openOutputFile, RecordSink } from '../../src/io/record-sink.js';
import { tempDir } from '../support/harness.js';

const tmp = tempDir('crawl-record-sink-');
afterAll(() => tmp.cleanup());

/** Lets every pending fs callback (a stray close among them) run. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Counts the closes of each descriptor until `restore()`. */
function countCloses(): { of(fd: number): number; restore(): void } {
  const spies = [vi.spyOn(fs, 'close'), vi.spyOn(fs, 'closeSync')];
  // The product imports close by name: its binding follows fs only once synced.
  syncBuiltinESMExports();
  return {
    of: (fd) => spies.flatMap((spy) => spy.mock.calls).filter((call) => call[0] === fd).length,
    restore() {
      for (const spy of spies) spy.mockRestore();
      syncBuiltinESMExports();
    },
  };
}

describe('RecordSink to a regular file', () => {
  for (const end of ['close', 'abandon'] as const) {
    it(`${end}: the descriptor is closed once, so files opened right after it stay open`, async () => {
      const path = join(tmp.dir, `${end}.ndjson`);
      const closes = countCloses();
      try {
        const file = await openOutputFile(path);
        const fd = file.fd as number;
        expect(typeof fd).toBe('number');
        await beginOutputFile(file);
        const sink = await RecordSink.toFile(file);
        await sink.writeLines('{"a":1}\n{"a":2}\n', 2);
        const others: number[] = [];
        const ended = end === 'close' ? sink.close() : sink.abandon();
        // Files opened while the sink closes, and just after: any may get the number it had.
        const opening = (async () => {
          for (let i = 0; i < 20; i++) {
            others.push(openSync(join(tmp.dir, `${end}.other`), 'w'));
            await new Promise((resolve) => setImmediate(resolve));
          }
        })();
        await Promise.all([ended, opening]);
        await settle();
        try {
          expect(file.fd).toBeUndefined();
          // Closed once, by the sink: the number given out again afterwards is never closed by it.
          expect(closes.of(fd)).toBe(1);
          for (const other of others) expect(fstatSync(other).isFile()).toBe(true);
        } finally {
          for (const other of others) closeSync(other);
        }
        expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n{"a":2}\n');
      } finally {
        closes.restore();
      }
    });
  }
});

describe('RecordSink to an existing regular file', () => {
  it('close() after an interrupt leaves the file as it was and throws the interrupt', async () => {
    const path = join(tmp.dir, 'interrupted-close.ndjson');
    writeFileSync(path, 'precious\n');
    const file = await openOutputFile(path);
    await beginOutputFile(file);
    const controller = new AbortController();
    const sink = await RecordSink.toFile(file, controller.signal);
    const interruption = new InterruptedError();
    // Ctrl-C in the awaits just before close(): an export with no records that did not end.
    controller.abort(interruption);
    await expect(sink.close()).rejects.toBe(interruption);
    expect(sink.untouched).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('precious\n');
  });

  it('close() with no interrupt and no record empties it: the export holds none', async () => {
    const path = join(tmp.dir, 'empty-close.ndjson');
    writeFileSync(path, 'old\n');
    const file = await openOutputFile(path);
    await beginOutputFile(file);
    const sink = await RecordSink.toFile(file, new AbortController().signal);
    await sink.close();
    expect(readFileSync(path, 'utf8')).toBe('');
  });
});
