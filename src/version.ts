import { readFileSync } from 'node:fs';

// dist/version.js sits one level below package.json, as src/version.ts does.
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
