// Testing your own code against the sandbox, with node:test: real HTTP on 127.0.0.1, in memory.
//   node --test sandbox.test.mjs
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClient } from '@webcrawl/cli';
import { startSandbox } from '@webcrawl/cli/sandbox';

let sandbox;
let client;
before(async () => {
  sandbox = await startSandbox();
  client = createClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.bootstrapKey });
});
after(async () => {
  await client.close();
  await sandbox.close();
});

test('a job that runs to completion', async () => {
  sandbox.addJob({ id: 'nightly', status: 'running', pagesTotal: 3, advance: { perPoll: 1 } });
  const seen = [];
  for await (const job of client.jobs.watch('nightly', { intervalMs: 10 })) seen.push(job.status);
  assert.equal(seen.at(-1), 'completed');
});

test('my code copes with a key the service refuses', async () => {
  sandbox.inject({ path: '/api/crawl/demo-small', kind: 'status', status: 403 });
  await assert.rejects(client.jobs.get('demo-small'), { httpStatus: 403, exitCode: 4 });
  sandbox.reset();
  assert.equal((await client.jobs.get('demo-small')).status, 'completed');
});
