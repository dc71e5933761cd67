// The output side of redaction, structurally: the streams commands write to redact everything,
// each line reaches them in one write, errors are sanitised before they are redacted, and only
// the two deliberate paths (a key handed over, the records of `job pages`) use stdout raw.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { reportError } from '../../src/app/exit.js';
import { CrawlError } from '../../src/errors.js';
import { createIO, type IO } from '../../src/io/io.js';
import { LiveLine } from '../../src/io/live-line.js';
import { testStreams } from '../../src/io/test-streams.js';
import { Redactor } from '../../src/text/redact.js';
import { ROOT } from '../support/spawn.js';
import { findKey } from '../support/key-forms.js';

const KEY = 'crk_Secret/Key+1234567890';
const between = (s: string, sep: string): string => [...s].map((c, i) => (i ? sep + c : c)).join('');

function capture(): { io: IO; redactor: Redactor; stderr: () => string; writes: string[] } {
  const redactor = new Redactor();
  redactor.add(KEY);
  const streams = testStreams();
  // What reaches the stream, a write at a time (the redacting writer hands each line over whole).
  const writes: string[] = [];
  const write = streams.stderr.write.bind(streams.stderr);
  vi.spyOn(streams.stderr, 'write').mockImplementation(((chunk: string | Buffer, ...rest: never[]) => {
    writes.push(chunk.toString());
    return write(chunk, ...rest);
  }) as typeof streams.stderr.write);
  const io = createIO(streams, redactor, { env: {}, noColor: true, noInput: true });
  return { io, redactor, stderr: () => streams.stderrText(), writes };
}

describe('redactingWriter', () => {
  it('redacts each write in any encoding and passes the callback through', async () => {
    const c = capture();
    await new Promise<void>((resolve) => {
      c.io.stderr.write(`a ${KEY} b\n`);
      c.io.stderr.write(`c ${between(KEY, '\u001b')} d ${encodeURIComponent(KEY)}\n`, () => resolve());
    });
    expect(c.stderr()).toBe('a [redacted] b\nc [redacted] d [redacted]\n');
  });
});

describe('LiveLine', () => {
  it('draws, messages and finishes with one write each, so a line is redacted whole', () => {
    const c = capture();
    const line = new LiveLine(c.io.stderr);
    line.update(`status ${between(KEY, '\u200b')}`);
    line.message(`warning ${KEY}`);
    line.update('done');
    line.done(true);
    expect(c.writes).toHaveLength(4);
    expect(findKey(c.stderr(), KEY)).toBeUndefined();
    expect(c.writes[0]).toBe('\u001b[?25l\r\u001b[2Kstatus [redacted]\r');
    expect(c.writes[1]).toBe('\r\u001b[2K\rwarning [redacted]\n\r\u001b[2Kstatus [redacted]\r');
    expect(c.writes[3]).toBe('\r\u001b[2Kdone\n\u001b[?25h');
  });
});

describe('reportError', () => {
  const hostile = `server said \u001b]0;pwned\u0007 ${between(KEY, '\u001b')} and ${KEY.replace('/', '\\/')}`;

  it.each([
    ['a message and hint with the key split by ESC and escaped', new CrawlError(hostile, 1, { hint: `try ${between(KEY, '\u202e')}` })],
    ['an unexpected error', new Error(hostile)],
  ])('%s: sanitised, then redacted, in every mode', (_name, error) => {
    for (const mode of [{ json: false, verbose: false }, { json: true, verbose: false }, { json: false, verbose: true }, { json: true, verbose: true }]) {
      const c = capture();
      reportError(c.io, error, { ...mode, redact: (t) => c.redactor.redact(t) });
      const out = c.stderr();
      expect(findKey(out, KEY), out).toBeUndefined();
      expect(out).toContain('[redacted]');
      expect(out).not.toMatch(/[\u0007\u001b\u202e]/);
      if (mode.json) {
        const line = JSON.parse(out.split('\n')[0] ?? '') as { error: { message: string } };
        expect(line.error.message).toContain('server said ]0;pwned [redacted]');
      }
      if (mode.verbose) expect(out).toContain('    at ');
    }
  });

  it('a --verbose stack trace keeps its lines, each sanitised', () => {
    const error = new CrawlError(`first\u001b[2J\nsecond \u0007line\rthird\u2028fourth`, 1);
    const c = capture();
    reportError(c.io, error, { json: false, verbose: true, redact: (t) => t });
    const lines = c.stderr().split('\n');
    expect(lines.slice(1, 5)).toEqual(['CrawlError: first[2J', 'second line', 'third', 'fourth']);
    expect(lines[5]).toMatch(/^ {4}at /);
  });
});

describe('the raw stdout', () => {
  function sources(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
    });
  }

  it('is used only to hand a key over (Deps.handOver) and for the records of `job pages`', () => {
    const users = sources(join(ROOT, 'src'))
      .filter((file) => readFileSync(file, 'utf8').includes('rawStdout'))
      .map((file) => relative(ROOT, file))
      .sort();
    expect(users).toEqual(['src/app/factory.ts', 'src/commands/job/lib/pages.ts', 'src/io/io.ts']);
    expect(readFileSync(join(ROOT, 'src/commands/auth/lib/token.ts'), 'utf8')).toContain('deps.handOver(');
  });
});
