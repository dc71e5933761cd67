// Error statuses and error bodies of every shape, shared by the status batteries: each row is a
// status with a body of its own shape (JSON with `error` a string or an object, an `errors` array,
// plain text, an HTML page, empty; one echoes the Authorization header back), and runStatusCase
// checks what a command shows for it.
import type { IncomingMessage } from 'node:http';
import type { ExpectStatic } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { fakeClock } from './fake-clock.js';
import { checkOutcome, GET_ATTEMPTS, identity, MAX_BACKOFF_MS, MAX_WAIT_S, runCommand, type Command } from './battery.js';
import { startHostile, type Body } from './hostile-server.js';

const echo = (req: IncomingMessage): string => String(req.headers.authorization ?? '');

export interface StatusRow {
  name: string;
  status: number;
  /** Headers, or made per request; `now` is the run's clock (a Retry-After date is read against it). */
  headers?: Record<string, string> | ((req: IncomingMessage, now: number) => Record<string, string>);
  body: Body;
  /** The server's message as the error line shows it (after `HTTP <status>`). */
  shown: RegExp;
  /** Longest wait the service asks for between attempts, in ms. */
  retryAfterMs?: number;
}

const html = { 'content-type': 'text/html; charset=utf-8' };
const text = { 'content-type': 'text/plain' };

export const ROWS: StatusRow[] = [
  { name: '429, Retry-After in seconds', status: 429, headers: { 'retry-after': '1' }, body: '{"success":false,"error":"slow down"}', shown: /HTTP 429: slow down/, retryAfterMs: 1000 },
  {
    name: '429, Retry-After as a date',
    status: 429,
    // Two seconds after the run's now (a whole second, as an HTTP date is): each wait is exactly 2 s.
    headers: (_req, now) => ({ 'retry-after': new Date(now + 2000).toUTCString() }),
    body: '{"errors":[{"message":"quota exceeded"}]}',
    shown: /HTTP 429: quota exceeded/,
    retryAfterMs: 2000,
  },
  {
    name: '500, an HTML page',
    status: 500,
    headers: html,
    body: '<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head><body><h1>Oops</h1></body></html>',
    shown: /HTTP 500: 500 Internal Server Error/,
  },
  { name: '502, plain text', status: 502, headers: text, body: 'upstream connect error\nreset reason: overflow', shown: /HTTP 502: upstream connect error/ },
  { name: '503, empty body', status: 503, body: '', shown: /HTTP 503$/ },
  { name: '504, error as an object', status: 504, body: '{"error":{"message":"gateway timeout","code":"E504"}}', shown: /HTTP 504: gateway timeout/ },
  {
    name: '401, error echoing the Authorization header',
    status: 401,
    body: (req) => JSON.stringify({ error: `invalid key: ${echo(req)}` }),
    shown: /HTTP 401: invalid key: Bearer \[redacted\]/,
  },
  { name: '403, an errors array', status: 403, body: '{"errors":[{"message":"forbidden"},"not your job"]}', shown: /HTTP 403: forbidden; not your job/ },
  { name: '404, error as a string', status: 404, body: '{"success":false,"error":"Not found"}', shown: /HTTP 404: Not found/ },
  { name: '405, plain text', status: 405, headers: text, body: 'Method Not Allowed', shown: /HTTP 405: Method Not Allowed/ },
  { name: '409, error as an object', status: 409, body: '{"error":{"message":"job already finished"}}', shown: /HTTP 409: job already finished/ },
  { name: '410, an HTML page without a title', status: 410, headers: html, body: '<html><body><h1>Gone</h1><p>moved</p></body></html>', shown: /HTTP 410: Gone/ },
];

const RETRIED = new Set([429, 502, 503, 504]);

function exitCodeFor(cmd: Command, status: number): number {
  // A watch sits out what may pass (429, 5xx) until --max-wait, and then, having never read the
  // job, ends with the last failure's code (below, as the one-shot read's); the rest end it at once.
  if (status === 401 || status === 403) return 4;
  if (status === 404) return 3;
  if (status === 429) return 6;
  return 1;
}

/** What a watch waits out rather than ends on. */
function sitsOut(status: number): boolean {
  return status === 429 || status >= 500;
}

function attemptsFor(cmd: Command, status: number): number {
  return cmd.method === 'GET' && RETRIED.has(status) ? GET_ATTEMPTS : 1;
}

function boundMs(cmd: Command, row: StatusRow): number {
  const retries = attemptsFor(cmd, row.status) - 1;
  return retries * Math.max(row.retryAfterMs ?? 0, 0) + (retries > 0 ? MAX_BACKOFF_MS : 0);
}

/**
 * One command against one status: exit code, message, attempts, what it waited (on its fake clock:
 * the retries' backoff or Retry-After; a watch, up to --max-wait), and nothing leaked.
 */
export async function runStatusCase(sandbox: Sandbox, cmd: Command, row: StatusRow, json: boolean, expect: ExpectStatic): Promise<void> {
  const id = identity(sandbox);
  // Starts at a whole second of the real now, so that an HTTP date (whole seconds) is an exact wait.
  const clock = fakeClock(Math.ceil(Date.now() / 1000) * 1000);
  const headers = row.headers;
  const fault = {
    kind: 'respond' as const,
    status: row.status,
    body: row.body,
    ...(headers === undefined ? {} : { headers: typeof headers === 'function' ? (req: IncomingMessage) => headers(req, clock.now()) : headers }),
  };
  const hostile = await startHostile({ upstream: sandbox.url, rules: [{ method: cmd.method, path: cmd.path(id), fault }] });
  try {
    const r = await runCommand(cmd, id, hostile.url, { extra: json ? ['--json'] : [], clock });
    const code = exitCodeFor(cmd, row.status);
    // `auth status` answers "is this key accepted?": a rejection is its report (stdout), not an error.
    const quiet = cmd.name === 'auth status' && code === 4;
    const satOut = cmd.polls === true && sitsOut(row.status);
    const message = satOut ? /gave up waiting: the job could not be read yet \(the last attempt: / : cmd.name === 'auth login' && code === 4 ? /rejected the key \(HTTP \d+\)/ : row.shown;
    const waits = cmd.polls
      ? { withinMs: MAX_WAIT_S * 1000, ...(satOut ? { gaveUpAtMs: MAX_WAIT_S * 1000 } : {}) }
      : { withinMs: boundMs(cmd, row), retries: { count: attemptsFor(cmd, row.status) - 1, retryAfterMs: row.retryAfterMs } };
    checkOutcome(expect, r, { code, json, quiet, message, ...waits }, [id.key]);
    if (quiet && json) expect(JSON.parse(r.stdout)).toMatchObject({ accepted: false, httpStatus: row.status });
    if (quiet && !json) expect(r.stdout).toMatch(/^accepted\tfalse$/m);
    if (!cmd.polls) expect(hostile.count(cmd.method, cmd.path(id))).toBe(attemptsFor(cmd, row.status));
  } finally {
    await hostile.close();
    id.cleanup();
  }
}
