// `npm run demo`: a short tour of crawl against a sandbox started in this process. It uses a
// throwaway config folder and state folder, so the user's own settings are neither read nor
// changed, and the tour's job ids do not push the user's own out of the ids Tab offers.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../sandbox/index.js';

const BIN = fileURLToPath(new URL('../../bin/crawl.js', import.meta.url));

interface Step {
  title: string;
  args: string[];
  /** Exit codes that are the point of the step (a watch of an errored job exits 10, say). */
  expect?: number[];
}

const steps: Step[] = [
  { title: 'Which service and key are we using?', args: ['auth', 'status'] },
  { title: 'A small completed job', args: ['job', 'demo-small'] },
  { title: 'A job that failed, with its exit status', args: ['job', 'status', 'demo-errored', '--exit-status'], expect: [10] },
  { title: 'A job still running', args: ['job', 'demo-running'] },
  { title: 'Watch it until it ends: each poll moves it on', args: ['job', 'watch', 'demo-running', '--interval', '0.5'] },
  { title: 'The first three pages as NDJSON', args: ['job', 'pages', 'demo-large', '--limit', '3'] },
  { title: 'The same job as JSON for jq', args: ['job', 'demo-timeout', '--json'] },
  { title: 'Or with jq built in: the URL of each page, as it arrives', args: ['job', 'pages', 'demo-large', '--limit', '3', '--jq', '.url'] },
  { title: 'The API keys of this account', args: ['keys', 'list'] },
  { title: 'Cancel the pending job', args: ['job', 'cancel', 'demo-pending'] },
];

async function main(): Promise<number> {
  const sandbox = await startSandbox({ port: 0 });
  const configDir = mkdtempSync(join(tmpdir(), 'crawl-demo-'));
  const env: NodeJS.ProcessEnv = { ...process.env, CRAWL_BASE_URL: sandbox.url, CRAWL_API_KEY: sandbox.key, CRAWL_CONFIG_DIR: configDir, XDG_STATE_HOME: join(configDir, 'state') };
  delete env.CRAWL_PROFILE;
  process.stdout.write(`crawl demo: a sandbox is serving the service at ${sandbox.url}\n`);
  let failures = 0;
  try {
    for (const step of steps) {
      process.stdout.write(`\n# ${step.title}\n$ crawl ${step.args.join(' ')}\n`);
      const code = await run(step.args, env);
      const expected = step.expect ?? [0];
      if (!expected.includes(code)) {
        failures++;
        process.stdout.write(`(unexpected exit code ${code})\n`);
      } else if (code !== 0) {
        process.stdout.write(`(exit code ${code}, as expected)\n`);
      }
    }
  } finally {
    await sandbox.close();
    rmSync(configDir, { recursive: true, force: true });
  }
  process.stdout.write(failures === 0 ? '\nTour complete. To try it by hand, follow the tour in README.md: it starts a sandbox of your own.\n' : `\n${failures} step(s) failed\n`);
  return failures === 0 ? 0 : 1;
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

process.exitCode = await main();
