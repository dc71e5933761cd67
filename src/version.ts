import { readFileSync } from 'node:fs';

// Set by the bundler at build time (see package.json "build"), so the bundled CLI reads no file
// for it; the unbundled modules (tests, sandbox, demo) read package.json one level above dist/.
declare const __CRAWL_VERSION__: string | undefined;

export const VERSION: string =
  typeof __CRAWL_VERSION__ === 'string'
    ? __CRAWL_VERSION__
    : (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
