// Waits for a crawl job to finish, then writes its pages to stdout as NDJSON, each record as the
// service sent it. Settings come from CRAWL_BASE_URL / CRAWL_API_KEY or the config file, as for `crawl`.
//   node watch-then-export.mjs <job-id> > pages.ndjson
import { createClient, CrawlError } from '@webcrawl/cli';

const client = createClient();
try {
  for await (const job of client.jobs.watch(process.argv[2], { maxWaitMs: 10 * 60_000 })) {
    console.error(`${job.status}: ${job.pagesFinished}/${job.pagesTotal} pages`);
  }
  for await (const record of client.jobs.pages(process.argv[2], { raw: true })) {
    process.stdout.write(record + '\n');
  }
} catch (error) {
  if (!(error instanceof CrawlError)) throw error;
  console.error(`error: ${error.message}`);
  process.exitCode = error.exitCode; // the CLI's exit codes: 3 not found, 7 gave up waiting, ...
} finally {
  await client.close();
}
