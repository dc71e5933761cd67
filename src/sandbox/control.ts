// /__sandbox/...: lets another process (a shell test, the benchmark) drive a running sandbox.
// No auth and no faults here: the controls must work while the service is made to misbehave.
import type { FaultSet } from './faults.js';
import { faultProblem } from './faults.js';
import { failure, json, parseJson, type Reply, type Target } from './http.js';
import { jobSpecProblem, wire, type JobStore } from './jobs.js';
import { DEMO_JOB_IDS, demoJobs } from './seed.js';
import type { Fault, JobSpec, RequestRecord } from './types.js';

export const CONTROL_PREFIX = '/__sandbox';

export interface ControlContext {
  faults: FaultSet;
  jobs: JobStore;
  requests: RequestRecord[];
}

export function isControlPath(pathname: string): boolean {
  return pathname === CONTROL_PREFIX || pathname.startsWith(CONTROL_PREFIX + '/');
}

export function handleControl(ctx: ControlContext, method: string, target: Target, body: string): Reply {
  switch (target.pathname) {
    case '/__sandbox/faults':
      if (method === 'POST') {
        const parsed = parseJson(body);
        if (!parsed.ok) return failure(400, 'Invalid JSON body');
        const problem = faultProblem(parsed.value);
        if (problem) return failure(400, `Invalid fault: ${problem}`);
        ctx.faults.inject(parsed.value as Fault);
        return json(201, { success: true, fault: parsed.value });
      }
      if (method === 'DELETE') {
        ctx.faults.clear();
        return json(200, { success: true });
      }
      return failure(405, `Method ${method} not allowed; use POST or DELETE`, { allow: 'POST, DELETE' });
    case '/__sandbox/jobs': {
      if (method !== 'POST') return failure(405, `Method ${method} not allowed; use POST`, { allow: 'POST' });
      const parsed = parseJson(body);
      if (!parsed.ok) return failure(400, 'Invalid JSON body');
      const problem = jobSpecProblem(parsed.value);
      if (problem) return failure(400, `Invalid job spec: ${problem}`);
      return json(201, wire(ctx.jobs.add(parsed.value as JobSpec)));
    }
    case '/__sandbox/reset':
      // The demo jobs as they were at start-up (demo-running back to running): other jobs and keys stay.
      if (method !== 'POST') return failure(405, `Method ${method} not allowed; use POST`, { allow: 'POST' });
      for (const spec of demoJobs()) ctx.jobs.add(spec);
      return json(200, { success: true, demoJobs: DEMO_JOB_IDS });
    case '/__sandbox/requests':
      if (method !== 'GET') return failure(405, `Method ${method} not allowed; use GET`, { allow: 'GET' });
      return json(200, { success: true, requests: ctx.requests });
    default:
      return failure(404, `Not found: ${method} ${target.pathname}`);
  }
}
