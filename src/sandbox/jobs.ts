// The job store: specs in, live jobs out. Progress of running jobs is computed lazily when a
// job is looked at, so no timer runs per job and an idle sandbox does nothing.
import { isPlainObject } from './http.js';
import { DEFAULT_SHAPE, renderRange, type Shape } from './pages.js';
import { randomHex } from './random.js';
import type { JobSpec, SandboxJob } from './types.js';

export const INLINE_PAGE_LIMIT = 100;

interface Entry {
  job: SandboxJob;
  shape: Shape;
  perBatch: number | undefined;
  advance: { perPoll: number; perSecond: number; endStatus: string } | null;
  cancel: { lagPolls: number; response: 'job' | 'message' };
  /** Fraction of a page earned by elapsed time but not yet added. */
  carry: number;
  lastSyncAt: number;
  /** Non-null while a lagging cancellation waits: the number of GETs it still lets pass. */
  cancelLag: number | null;
}

export type CancelResult =
  | { kind: 'missing' }
  | { kind: 'conflict'; status: string }
  | { kind: 'accepted'; response: 'job' | 'message'; job: Record<string, unknown> };

export class JobStore {
  private readonly entries = new Map<string, Entry>();

  /** Forgets every job. */
  clear(): void {
    this.entries.clear();
  }

  /** Replaces a job of the same id, so a test can reset a demo job. */
  add(spec: JobSpec): SandboxJob {
    const problem = jobSpecProblem(spec);
    if (problem) throw new TypeError(`Invalid job spec: ${problem}`);
    const entry = createEntry(spec);
    this.entries.set(entry.job.id, entry);
    return entry.job;
  }

  get(id: string): SandboxJob | undefined {
    const entry = this.entries.get(id);
    if (entry) sync(entry);
    return entry?.job;
  }

  /** A GET of the job: it moves the job along (perPoll, cancel lag) before it is shown. */
  poll(id: string): { job: Record<string, unknown>; inlinePages: string | null } | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    sync(entry);
    if (entry.cancelLag !== null) {
      if (entry.cancelLag > 0) entry.cancelLag -= 1;
      else finishCancel(entry);
    } else if (entry.job.status === 'running' && entry.advance && entry.advance.perPoll > 0) {
      addPages(entry, entry.advance.perPoll);
    }
    const { job } = entry;
    const inline = job.status === 'completed' && job.pagesTotal <= INLINE_PAGE_LIMIT;
    return { job: wire(job), inlinePages: inline ? renderRange(job.url, 1, readable(job)) : null };
  }

  cancel(id: string): CancelResult {
    const entry = this.entries.get(id);
    if (!entry) return { kind: 'missing' };
    sync(entry);
    const { status } = entry.job;
    if (status !== 'pending' && status !== 'running') return { kind: 'conflict', status };
    // A repeated DELETE while a lagging cancellation waits neither restarts nor hurries it.
    if (entry.cancelLag === null) {
      if (entry.cancel.lagPolls > 0) entry.cancelLag = entry.cancel.lagPolls;
      else finishCancel(entry);
    }
    return { kind: 'accepted', response: entry.cancel.response, job: wire(entry.job) };
  }

  /** What the pages endpoint needs: how many pages can be read now, and in which shape. */
  pageSource(id: string): { job: SandboxJob; shape: Shape; perBatch: number | undefined; available: number } | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    sync(entry);
    return { job: entry.job, shape: entry.shape, perBatch: entry.perBatch, available: readable(entry.job) };
  }
}

/** The job as the service shows it; extra goes last so a test can also corrupt standard fields. */
export function wire(job: SandboxJob): Record<string, unknown> {
  return {
    id: job.id,
    url: job.url,
    status: job.status,
    pagesTotal: job.pagesTotal,
    pagesFinished: job.pagesFinished,
    creditsUsed: job.creditsUsed,
    createdAt: job.createdAt,
    ...(job.errorMessage !== undefined ? { errorMessage: job.errorMessage } : {}),
    ...job.extra,
  };
}

/** Finished pages that exist as records; a pending job has none whatever its counters say. */
function readable(job: SandboxJob): number {
  if (job.status === 'pending') return 0;
  return Math.max(0, Math.min(job.pagesFinished, job.pagesTotal));
}

function createEntry(spec: JobSpec): Entry {
  const pagesFinished = spec.pagesFinished ?? (spec.status === 'completed' ? spec.pagesTotal : 0);
  const unbilled = spec.status === 'running' || spec.status === 'pending';
  const job: SandboxJob = {
    id: spec.id ?? 'job_' + randomHex(12),
    url: spec.url ?? 'https://example.com/',
    status: spec.status,
    pagesTotal: spec.pagesTotal,
    pagesFinished,
    creditsUsed: spec.creditsUsed ?? (unbilled ? 0 : pagesFinished),
    createdAt: spec.createdAt ?? new Date().toISOString(),
    ...(spec.errorMessage !== undefined ? { errorMessage: spec.errorMessage } : {}),
    extra: { ...spec.extra },
  };
  return {
    job,
    shape: {
      records: spec.pagesShape?.records ?? DEFAULT_SHAPE.records,
      next: spec.pagesShape?.next ?? DEFAULT_SHAPE.next,
      link: spec.pagesShape?.link ?? DEFAULT_SHAPE.link,
    },
    perBatch: spec.pagesPerBatch,
    advance: spec.advance
      ? {
          perPoll: spec.advance.perPoll ?? 0,
          perSecond: spec.advance.perSecond ?? 0,
          endStatus: spec.advance.endStatus ?? 'completed',
        }
      : null,
    cancel: { lagPolls: spec.cancel?.lagPolls ?? 0, response: spec.cancel?.response ?? 'job' },
    carry: 0,
    lastSyncAt: Date.now(),
    cancelLag: null,
  };
}

/** Applies the time-based progress earned since the last look. Frozen while a cancel waits. */
function sync(entry: Entry): void {
  const now = Date.now();
  const elapsed = Math.max(0, now - entry.lastSyncAt) / 1000;
  entry.lastSyncAt = now;
  const { advance } = entry;
  if (!advance || advance.perSecond <= 0 || entry.cancelLag !== null) return;
  if (entry.job.status !== 'running') return;
  entry.carry += elapsed * advance.perSecond;
  const whole = Math.floor(entry.carry);
  entry.carry -= whole;
  if (whole > 0) addPages(entry, whole);
}

function addPages(entry: Entry, count: number): void {
  const { job } = entry;
  job.pagesFinished = Math.min(job.pagesTotal, job.pagesFinished + count);
  if (job.pagesFinished >= job.pagesTotal && entry.advance) {
    job.status = entry.advance.endStatus;
    job.creditsUsed = job.pagesFinished;
  }
}

function finishCancel(entry: Entry): void {
  entry.cancelLag = null;
  entry.job.status = 'cancelled_by_user';
  entry.job.creditsUsed = readable(entry.job);
}

/** Why a value (e.g. a JSON body of POST /__sandbox/jobs) is not a JobSpec, or null if it is. */
export function jobSpecProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return 'must be an object';
  const v = value;
  if (v.id !== undefined && (typeof v.id !== 'string' || v.id === '')) return 'id must be a non-empty string';
  if (v.url !== undefined && typeof v.url !== 'string') return 'url must be a string';
  if (typeof v.status !== 'string') return 'status must be a string';
  if (!isCount(v.pagesTotal)) return 'pagesTotal must be a non-negative integer';
  if (v.pagesFinished !== undefined && !isCount(v.pagesFinished)) return 'pagesFinished must be a non-negative integer';
  if (v.creditsUsed !== undefined && !isAmount(v.creditsUsed)) return 'creditsUsed must be a non-negative number';
  if (v.errorMessage !== undefined && typeof v.errorMessage !== 'string') return 'errorMessage must be a string';
  if (v.createdAt !== undefined && typeof v.createdAt !== 'string') return 'createdAt must be a string';
  if (v.extra !== undefined && !isPlainObject(v.extra)) return 'extra must be an object';
  if (v.advance !== undefined) {
    const a = v.advance;
    if (!isPlainObject(a)) return 'advance must be an object';
    if (a.perPoll !== undefined && !isAmount(a.perPoll)) return 'advance.perPoll must be a non-negative number';
    if (a.perSecond !== undefined && !isAmount(a.perSecond)) return 'advance.perSecond must be a non-negative number';
    if (a.endStatus !== undefined && typeof a.endStatus !== 'string') return 'advance.endStatus must be a string';
  }
  if (v.pagesShape !== undefined) {
    const s = v.pagesShape;
    if (!isPlainObject(s)) return 'pagesShape must be an object';
    if (!oneOf(s.records, ['pages', 'data'])) return "pagesShape.records must be 'pages' or 'data'";
    if (!oneOf(s.next, ['next', 'nextCursor'])) return "pagesShape.next must be 'next' or 'nextCursor'";
    if (!oneOf(s.link, ['cursor', 'path', 'url'])) return "pagesShape.link must be 'cursor', 'path' or 'url'";
  }
  if (v.pagesPerBatch !== undefined && !(isCount(v.pagesPerBatch) && v.pagesPerBatch >= 1)) return 'pagesPerBatch must be a positive integer';
  if (v.cancel !== undefined) {
    const c = v.cancel;
    if (!isPlainObject(c)) return 'cancel must be an object';
    if (c.lagPolls !== undefined && !isCount(c.lagPolls)) return 'cancel.lagPolls must be a non-negative integer';
    if (!oneOf(c.response, ['job', 'message'])) return "cancel.response must be 'job' or 'message'";
  }
  return null;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function oneOf(value: unknown, allowed: readonly string[]): boolean {
  return value === undefined || (typeof value === 'string' && allowed.includes(value));
}
