// --json on a terminal: one document laid out for people (whitespace only), for every command
// alike; in a pipe the same document as received; streams one value a line everywhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonDocument } from '../../src/io/json.js';
import { sandboxFixture, type SandboxFixture } from '../helpers/sandbox.js';
import { crawl } from '../support/harness.js';

let fx: SandboxFixture;
beforeAll(async () => {
  fx = await sandboxFixture({ seed: false });
  fx.sandbox.addJob({ id: 'pretty-done', status: 'completed', pagesTotal: 3 });
  fx.sandbox.addJob({ id: 'pretty-running', status: 'running', pagesTotal: 100, pagesFinished: 1, advance: { perPoll: 50 } });
});
afterAll(async () => {
  await fx.close();
});

/** Pretty: more than one line, two-space indentation, and the same value as the compact form. */
function expectPretty(stdout: string): unknown {
  expect(stdout.endsWith('\n')).toBe(true);
  const lines = stdout.trimEnd().split('\n');
  expect(lines.length, stdout).toBeGreaterThan(2);
  expect(lines[0]).toMatch(/^[[{]$/);
  expect(lines[1]).toMatch(/^ {2}\S/);
  return JSON.parse(stdout) as unknown;
}

function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
  return typeof value;
}

const commands: Array<[string, string[]]> = [
  ['job status', ['job', 'status', 'pretty-done']],
  ['keys list', ['keys', 'list']],
  ['config path', ['config', 'path']],
  ['auth status', ['auth', 'status']],
  ['config list', ['config', 'list']],
  ['sandbox --reset', ['sandbox', '--reset']],
];

describe('--json on a terminal is pretty-printed, in a pipe as received', () => {
  it.each(commands)('%s', async (_name, argv) => {
    const onTerminal = await crawl([...argv, '--json'], { env: fx.env, tty: true });
    expect(onTerminal.code, onTerminal.stderr).toBe(0);
    const pretty = expectPretty(onTerminal.stdout);
    const inPipe = await crawl([...argv, '--json'], { env: fx.env, tty: { stderr: true } });
    expect(inPipe.code).toBe(0);
    expect(inPipe.stdout.trimEnd().split('\n')).toHaveLength(1);
    // The same document (a key's lastUsedAt moves between the two runs: its shape is compared).
    expect(shape(JSON.parse(inPipe.stdout))).toEqual(shape(pretty));
  });

  it('the body keeps its tokens: a number as the service wrote it', () => {
    const text = '{"a":1.0,"b":18446744073709551616,"c":"x\\u001b[31m"}';
    expect(jsonDocument({ prettyJson: true }, text)).toBe('{\n  "a": 1.0,\n  "b": 18446744073709551616,\n  "c": "x\\u001b[31m"\n}\n');
    expect(jsonDocument({ prettyJson: false }, text)).toBe(text + '\n');
  });

  it('--jq on a terminal prints what jq prints, not a re-laid document', async () => {
    const r = await crawl(['job', 'status', 'pretty-done', '--jq', '{id: .job.id}'], { env: fx.env, tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"id":"pretty-done"}\n');
  });

  it('a stream stays one value a line on a terminal: job watch --json', async () => {
    const r = await crawl(['job', 'watch', 'pretty-running', '--json'], { env: fx.env, tty: true });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('job');
  });
});
