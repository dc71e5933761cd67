// Demo jobs: one in every status, with stable ids so the README and tests can name them.
import type { JobSpec } from './types.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const DEMO_JOB_IDS = [
  'demo-running',
  'demo-pending',
  'demo-small',
  'demo-large',
  'demo-errored',
  'demo-cancelled',
  'demo-timeout',
  'demo-limits',
  'demo-huge',
] as const;

export function demoJobs(now: number = Date.now()): JobSpec[] {
  const ago = (ms: number): string => new Date(now - ms).toISOString();
  return [
    {
      id: 'demo-running',
      url: 'https://docs.example.com/',
      status: 'running',
      pagesTotal: 120,
      pagesFinished: 37,
      createdAt: ago(3 * MINUTE),
      // It moves on mostly as it is looked at: a watch sees it through in a few polls,
      // while on its own it takes a quarter of an hour, so whoever starts the sandbox and reads
      // the README's tour minutes later still finds it running. `crawl sandbox --reset` starts it over.
      advance: { perPoll: 12, perSecond: 0.1 },
    },
    { id: 'demo-pending', url: 'https://queue.example.org/', status: 'pending', pagesTotal: 50, createdAt: ago(1 * MINUTE) },
    { id: 'demo-small', url: 'https://example.com/', status: 'completed', pagesTotal: 42, createdAt: ago(2 * HOUR) },
    { id: 'demo-large', url: 'https://blog.example.net/', status: 'completed', pagesTotal: 250, createdAt: ago(1 * DAY) },
    {
      id: 'demo-errored',
      url: 'https://private.example.com/',
      status: 'errored',
      pagesTotal: 80,
      pagesFinished: 17,
      errorMessage: 'Robots.txt disallowed the remaining pages',
      createdAt: ago(5 * HOUR),
    },
    {
      id: 'demo-cancelled',
      url: 'https://shop.example.com/',
      status: 'cancelled_by_user',
      pagesTotal: 200,
      pagesFinished: 30,
      createdAt: ago(2 * DAY),
    },
    {
      id: 'demo-timeout',
      url: 'https://slow.example.org/',
      status: 'cancelled_due_to_timeout',
      pagesTotal: 1000,
      pagesFinished: 612,
      createdAt: ago(3 * DAY),
    },
    {
      id: 'demo-limits',
      url: 'https://wiki.example.org/',
      status: 'cancelled_due_to_limits',
      pagesTotal: 5000,
      pagesFinished: 500,
      createdAt: ago(4 * DAY),
    },
    { id: 'demo-huge', url: 'https://archive.example.com/', status: 'completed', pagesTotal: 1_000_000, createdAt: ago(6 * DAY) },
  ];
}
