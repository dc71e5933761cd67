// A request that times out (src/http/client.ts): the message says how many attempts timed out, so
// "timed out after 0.2 s" is not read as one short wait. Against a server that accepts connections
// and never answers; each attempt's --timeout passes on the run's fake clock once that attempt has
// reached the server.
import { afterAll, describe, expect, it } from 'vitest';
import { fakeClock, type FakeClock } from '../support/fake-clock.js';
import { crawl, waitFor } from '../support/harness.js';
import { startSilentTcp } from '../support/hostile-server.js';
import { BAD_KEY, configFolders } from '../support/settings.js';

const folders = configFolders('crawl-timeouts-');
afterAll(() => folders.cleanup());

/** Moves `clock` on by `ms` each time one more request reaches `server`, `attempts` times. */
async function timeOutEach(server: { requests(): number }, clock: FakeClock, ms: number, attempts: number): Promise<void> {
  for (let n = 1; n <= attempts; n++) {
    await waitFor(() => server.requests() >= n, 10_000, `attempt ${n} at the server`);
    await clock.advance(ms);
  }
}

describe('timeouts count the attempts made', () => {
  it('a read that times out on every attempt says so; a POST tried once does not', async () => {
    const [silentRead, silentPost] = await Promise.all([startSilentTcp(), startSilentTcp()]);
    try {
      const env = (silent: { url: string }) => ({ CRAWL_BASE_URL: silent.url, CRAWL_API_KEY: BAD_KEY, CRAWL_CONFIG_DIR: folders.fresh() });
      const readClock = fakeClock();
      const postClock = fakeClock();
      const [read, post] = await Promise.all([
        crawl(['job', 'demo-small', '--timeout', '0.2'], { env: env(silentRead), clock: readClock }),
        crawl(['keys', 'create', 'x', '--timeout', '0.2'], { env: env(silentPost), clock: postClock }),
        timeOutEach(silentRead, readClock, 200, 4),
        timeOutEach(silentPost, postClock, 200, 1),
      ]);
      expect(read.code).toBe(5);
      expect(read.stderr.split('\n')[0]).toBe('crawl: timed out after 0.2 s waiting for GET /api/crawl/demo-small, on each of 4 attempts');
      expect(silentRead.requests()).toBe(4);
      expect(post.code).toBe(5);
      expect(post.stderr.split('\n')[0]).toMatch(/^crawl: timed out after 0\.2 s waiting for POST \/api\/keys(?!, on)/);
      expect(silentPost.requests()).toBe(1);
    } finally {
      await Promise.all([silentRead.close(), silentPost.close()]);
    }
  });
});
