import { ExitCode } from '../exit-codes.js';
import type { HttpClient, HttpResponse } from '../http/client.js';
import { documentMembers, type JsonSpan } from '../text/json-scan.js';
import type { Job } from './model.js';
import { isRecord, malformed } from './shape.js';

export type { Job };

export interface JobResponse {
  job: Job;
  /** The inline pages when the server sent an array; undefined otherwise. */
  pages: unknown[] | undefined;
  /** The body exactly as received, for --json. */
  raw: string;
}

/** The statuses a job never leaves, and the exit code each maps to (the contract's table). */
const TERMINAL_EXIT_CODES = new Map<string, number>([
  ['completed', ExitCode.ok],
  ['errored', ExitCode.errored],
  ['cancelled_by_user', ExitCode.cancelledByUser],
  ['cancelled_due_to_timeout', ExitCode.cancelledDueToTimeout],
  ['cancelled_due_to_limits', ExitCode.cancelledDueToLimits],
]);

export function isTerminal(status: string): boolean {
  return TERMINAL_EXIT_CODES.has(status);
}

/** The exit code a terminal status maps to; undefined while the job may still change. */
export function terminalExitCode(status: string): number | undefined {
  return TERMINAL_EXIT_CODES.get(status);
}

/** Validates just enough to show a job: an object with a `job` object whose `status` is a string. */
export function parseJobBody(body: unknown, raw: string, id: string, what: string): JobResponse {
  if (!isRecord(body)) throw malformed(what, 'expected a JSON object');
  const job = body.job;
  if (!isRecord(job)) throw malformed(what, 'no "job" object in the body');
  if (typeof job.status !== 'string') throw malformed(what, 'the job has no "status" string');
  const jobId = typeof job.id === 'string' && job.id !== '' ? job.id : id;
  return { job: { ...job, id: jobId, status: job.status }, pages: Array.isArray(body.pages) ? body.pages : undefined, raw };
}

export async function getJob(http: HttpClient, id: string, options: { retry?: boolean } = {}): Promise<JobResponse> {
  const { response, body } = await http.requestJson({ method: 'GET', path: ['api', 'crawl', id], retry: options.retry ?? true });
  return parseJobBody(body, response.text, id, `GET ${response.url.pathname}`);
}

/**
 * Where the inline `pages` array lies in the job's raw body, for writing its records as they were
 * sent (`pages` in JobResponse is the same array parsed, for counting). Undefined when the body
 * has no array there. The body has been parsed already, so it is known to be JSON.
 */
export function inlinePagesSpan(raw: string): JsonSpan | undefined {
  let pages: JsonSpan | undefined;
  try {
    // The last `pages` counts, as with JSON.parse.
    for (const { key, value } of documentMembers(raw)) if (key === 'pages') pages = value;
  } catch {
    return undefined;
  }
  return pages?.kind === 'array' ? pages : undefined;
}

/** The answer to DELETE /api/crawl/:id, whose body the service does not document. */
export interface CancelAnswer {
  response: HttpResponse;
  /** The body and its value when it is JSON (a 204 or a plain-text "OK" is not). */
  body: { raw: string; value: unknown } | undefined;
  /** The job in that body, when it holds one. */
  job: JobResponse | undefined;
}

/** DELETE /api/crawl/:id, sent once (the HTTP layer retries GETs only); failures are thrown as they are. */
export async function requestCancel(http: HttpClient, id: string): Promise<CancelAnswer> {
  const response = await http.request({ method: 'DELETE', path: ['api', 'crawl', id], retry: false });
  const body = jsonBody(response.text);
  let job: JobResponse | undefined;
  try {
    job = body && parseJobBody(body.value, body.raw, id, `DELETE ${response.url.pathname}`);
  } catch {
    job = undefined;
  }
  return { response, body, job };
}

function jsonBody(text: string): { raw: string; value: unknown } | undefined {
  if (text.trim() === '') return undefined;
  try {
    return { raw: text, value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}
