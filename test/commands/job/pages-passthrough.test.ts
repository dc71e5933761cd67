// `job pages` passes each record through as the service sent it: integers beyond 2^53, 1.0,
// 1e-400, 1e400, -0 and escapes come out unchanged, in the inline pages of the job body and in
// every batch, on stdout and in --output; taking line breaks out of a pretty-printed record is the
// only change. A numeric next cursor goes back as its digits.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runCli, tempDir } from '../../support/harness.js';
import { completedJob, startPagesServer, type PagesServer, type ScriptedJob } from '../../support/pages-server.js';

/** Records that a parse and re-serialisation would change, each as the service writes it. */
const SPECIAL = [
  '{"id":12345678901234567890,"f":1.0,"tiny":1e-400,"huge":1e400,"neg":-0,"s":"caf\\u00e9 \\/ ok"}',
  '{"nested":{"a":[1.50,{"b":-0.0E+00}],"t":true,"n":null},"emoji":"\\ud83d\\ude00","big":-98765432109876543210.000}',
  '{"url":"https://example.com/a","escapes":"tab\\tquote\\"back\\\\slash\\u0000","keys":{"b":1,"a":2,"b ":3}}',
  '[9007199254740993, 1E+2, 0.1000]',
  '"a record that is a string \\u2028"',
  '-0.0',
];

/** The same records pretty-printed: line breaks (LF and CRLF) and indentation between tokens. */
const PRETTY = [
  '{\n  "id": 12345678901234567890,\n  "f": 1.0,\n  "tiny": 1e-400,\n  "huge": 1e400\n}',
  '{\r\n\t"nested": {\r\n\t\t"a": [\r\n\t\t\t1.50,\r\n\t\t\t-0\r\n\t\t]\r\n\t},\r\n\t"s": "\\u00e9\\/"\r\n}',
  '[\n  1.0,\n  {\n    "x": 2e308\n  }\n]',
];

const oneLine = (record: string): string => record.replace(/[\r\n]/g, '');

function batchBody(recs: string[], next: string, pretty = false): string {
  return pretty ? `{\n  "success": true,\n  "pages": [\n    ${recs.join(',\n    ')}\n  ],\n  "next": ${next}\n}\n` : `{"success":true,"pages":[${recs.join(',')}],"next":${next}}`;
}

let svc: PagesServer;
let out: { dir: string; cleanup: () => void };

const JOBS: Record<string, ScriptedJob> = {
  // Inline: a completed job of at most 100 pages carries its records in the job body.
  'inline-special': { job: () => completedJob('inline-special', SPECIAL.length, `[${SPECIAL.join(',')}]`) },
  'inline-pretty': { job: () => completedJob('inline-pretty', PRETTY.length, `[\n${PRETTY.join(',\n')}\n]`) },
  // Batches: two of them, compact then pretty-printed (no inline pages: they come through /pages).
  batches: {
    job: () => completedJob('batches', SPECIAL.length + PRETTY.length),
    pages: (query) => (query.get('cursor') === null ? { body: batchBody(SPECIAL, '"c2"') } : { body: batchBody(PRETTY, 'null', true) }),
  },
};
for (const token of ['9007199254740993', '18446744073709551617', '1.0', '-0', '1e400', '123456789012345678901234567890.5e-7']) {
  JOBS[`cursor-${token}`] = {
    job: () => completedJob(`cursor-${token}`, 2),
    pages: (query, n) => (n === 0 ? { body: `{"data":[{"n":1}],"nextCursor":${token}}` } : { body: `{"data":[{"n":2,"cursor":${JSON.stringify(query.get('cursor'))}}]}` }),
  };
}
const STRING_CURSOR = 'a+b/c==&x=1 %20é';
JOBS['cursor-string'] = {
  job: () => completedJob('cursor-string', 2),
  pages: (query, n) => (n === 0 ? { body: `{"pages":[{"n":1}],"next":${JSON.stringify(STRING_CURSOR)}}` } : { body: `{"pages":[{"n":2,"cursor":${JSON.stringify(query.get('cursor'))}}]}` }),
};

beforeAll(async () => {
  svc = await startPagesServer(JOBS);
  out = tempDir('crawl-passthrough-');
});
afterAll(async () => {
  out.cleanup();
  await svc.close();
});

const EXPECTED_BATCHES = [...SPECIAL, ...PRETTY].map(oneLine).join('\n') + '\n';

describe('records come out byte for byte as sent', () => {
  it.concurrent.for([
    ['inline, on stdout', 'inline-special', SPECIAL, false],
    ['inline, to --output', 'inline-special', SPECIAL, true],
    ['inline and pretty-printed, on stdout', 'inline-pretty', PRETTY, false],
    ['inline and pretty-printed, to --output', 'inline-pretty', PRETTY, true],
  ] as const)('%s', async ([, id, recs, toFile], { expect }) => {
    const file = join(out.dir, `${id}-${String(toFile)}.ndjson`);
    const r = await runCli(['job', 'pages', id, ...(toFile ? ['--output', file] : [])], { env: svc.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const written = toFile ? readFileSync(file, 'utf8') : r.stdout;
    expect(written).toBe(recs.map(oneLine).join('\n') + '\n');
    if (toFile) expect(r.stdout).toBe('');
    // And each line is still JSON that parses.
    for (const line of written.trimEnd().split('\n')) JSON.parse(line);
  });

  it.concurrent.for([
    ['batches, on stdout', false],
    ['batches, to --output', true],
  ] as const)('%s: compact and pretty-printed batches', async ([, toFile], { expect }) => {
    const file = join(out.dir, `batches-${String(toFile)}.ndjson`);
    const r = await runCli(['job', 'pages', 'batches', ...(toFile ? ['--output', file] : [])], { env: svc.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(toFile ? readFileSync(file, 'utf8') : r.stdout).toBe(EXPECTED_BATCHES);
  });

  it.concurrent('--limit cuts at a record boundary, inside a batch and inside the inline array', async ({ expect }) => {
    const batches = await runCli(['job', 'pages', 'batches', '--limit', '7'], { env: svc.env });
    expect(batches.stdout).toBe([...SPECIAL, PRETTY[0] as string].map(oneLine).join('\n') + '\n');
    const inline = await runCli(['job', 'pages', 'inline-special', '--limit', '2'], { env: svc.env });
    expect(inline.stdout).toBe(SPECIAL.slice(0, 2).join('\n') + '\n');
  });

  it.concurrent('--json changes nothing: the lines are the records as sent', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'batches', '--json'], { env: svc.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(EXPECTED_BATCHES);
  });
});

describe('a numeric next cursor goes back exactly as its token', () => {
  it.concurrent.for(['9007199254740993', '18446744073709551617', '1.0', '-0', '1e400', '123456789012345678901234567890.5e-7'])('%s', async (token, { expect }) => {
    const r = await runCli(['job', 'pages', `cursor-${token}`], { env: svc.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The server echoes the cursor it received into the second record.
    expect(r.stdout).toBe(`{"n":1}\n{"n":2,"cursor":${JSON.stringify(token)}}\n`);
    const second = svc.seen.filter((s) => s.url.startsWith(`/api/crawl/${encodeURIComponent(`cursor-${token}`)}/pages`))[1];
    expect(new URL(second?.url ?? '', 'http://x').searchParams.get('cursor')).toBe(token);
  });

  it.concurrent('a string cursor with characters a URL must escape arrives as it was sent', async ({ expect }) => {
    const r = await runCli(['job', 'pages', 'cursor-string'], { env: svc.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`{"n":1}\n{"n":2,"cursor":${JSON.stringify(STRING_CURSOR)}}\n`);
  });
});
