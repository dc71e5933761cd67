// The output file of `job pages` is closed once: a second close of the same number would close
// whatever the process opened since (in an embedding process, another run's socket or file).
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { beginOutputFile, openOutputFile, RecordSink } from '../../src/io/record-sink.js';
import { tempDir } from '../support/harness.js';

const tmp = tempDir('crawl-record-sink-');
afterAll(() => tmp.cleanup());

/** Lets every pending fs callback (a stray close among them) run. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('RecordSink to a regular file', () => {
  for (const end of ['close', 'abandon'] as const) {
    it(`${end}: the descriptor is closed once, so files opened right after it stay open`, async () => {
      // A stray close races the next open: many rounds make the race show.
      for (let round = 0; round < 100; round++) {
        const path = join(tmp.dir, `${end}-${round}.ndjson`);
        const file = await openOutputFile(path);
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
          for (const fd of others) expect(fstatSync(fd).isFile()).toBe(true);
        } finally {
          for (const fd of others) closeSync(fd);
        }
        expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n{"a":2}\n');
      }
    });
  }
});
