import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository (this file is dist/build/paths.js once built). */
export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const BUNDLE_DIR = join(ROOT, 'dist', 'bundle');
/** Beside the pack: the source files each of its modules was made from (for the tests; not shipped). */
export const MODULES = 'modules.json';
export const BIN = join(ROOT, 'bin', 'crawl.js');
