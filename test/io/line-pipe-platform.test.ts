// The pieces src/io/line-pipe.ts hands a pipe, by the platform's PIPE_BUF: on macOS (512) a record
// of 513 to 4096 bytes is not one atomic write, so it goes on its own and, in flight at a signal,
// gets the grace a long line gets; on Linux (4096) it is atomic.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { alignLines } from '../../src/io/line-pipe.js';
import { pipeBufferSize } from '../../src/platform/platform.js';

/** A pipe that records each write and confirms it only when told to. */
function pipe(): { stream: Writable; pieces: Buffer[]; confirm: () => void } {
  const pending: (() => void)[] = [];
  const pieces: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      pieces.push(chunk);
      pending.push(() => callback());
    },
  });
  return { stream, pieces, confirm: () => pending.shift()?.() };
}

const line = (bytes: number): string => 'x'.repeat(bytes - 1) + '\n';

describe.each([
  ['linux', 4096],
  ['darwin', 512],
  ['win32', 512],
] as const)('%s (PIPE_BUF %i)', (os, size) => {
  const pipeBuf = pipeBufferSize({ os });

  it('pieces end at line breaks and are at most PIPE_BUF bytes while lines fit', () => {
    expect(pipeBuf).toBe(size);
    const p = pipe();
    alignLines(p.stream, { atomic: true, pipeBuf });
    p.stream.write(line(300).repeat(20));
    for (let i = 0; i < 40 && p.pieces.length < 40; i++) p.confirm();
    expect(p.pieces.map((b) => b.length).reduce((a, b) => a + b, 0)).toBe(6000);
    for (const piece of p.pieces) {
      expect(piece.length).toBeLessThanOrEqual(pipeBuf);
      expect(piece.at(-1)).toBe(0x0a);
    }
  });

  it('a 1000-byte record in flight at a signal: settled at once only where it is atomic', async () => {
    const p = pipe();
    const alignment = alignLines(p.stream, { atomic: true, pipeBuf });
    p.stream.write(line(1000));
    expect(p.pieces).toHaveLength(1);
    let settled = false;
    const settling = alignment.settle(60_000).then(() => (settled = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(pipeBuf >= 1000);
    // Its end confirmed, the reader has whole lines: settled either way.
    p.confirm();
    await settling;
    expect(settled).toBe(true);
  });
});
