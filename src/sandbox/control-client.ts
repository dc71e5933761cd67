// `crawl sandbox --reset`: asks a running sandbox, over HTTP, to restore its demo jobs. A client
// of the sandbox's own control endpoint, so it lives with the sandbox and imports nothing of the CLI.
import { request } from 'node:http';

export interface ControlAnswer {
  status: number;
  body: string;
}

/** POST /__sandbox/reset at `base` (http://127.0.0.1:PORT/...); rejects with the socket's error. */
export function postReset(base: URL, timeoutMs: number): Promise<ControlAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL('/__sandbox/reset', base),
      { method: 'POST', timeout: timeoutMs, headers: { 'content-length': '0' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs / 1000} s`), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end();
  });
}
