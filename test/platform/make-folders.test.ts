// Folders and their missing parents (src/platform/make-folders.ts), as the config file, the job
// history, the sandbox's keys and a rescued key need them: made with the mode asked, an existing
// folder (or a link to one) taken as it is, and every failure the file system's own. Where Node's
// recursive mkdir would loop for ever (/proc): test/process/unmakeable-folders.test.ts, in processes
// a hang guard can kill.
import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeFolders } from '../../src/platform/make-folders.js';
import { tempDir } from '../support/harness.js';

const tmp = tempDir('crawl-make-folders-');
afterAll(() => tmp.cleanup());

describe('makeFolders', () => {
  it('makes the folder and its missing parents with the mode asked; one already there is left as it is', () => {
    const deep = join(tmp.dir, 'a', 'b', 'c');
    makeFolders(deep, 0o700);
    for (const folder of [join(tmp.dir, 'a'), join(tmp.dir, 'a', 'b'), deep]) expect(statSync(folder).mode & 0o777).toBe(0o700);
    mkdirSync(join(tmp.dir, 'open'), { mode: 0o755 });
    makeFolders(join(tmp.dir, 'open'), 0o700);
    expect(statSync(join(tmp.dir, 'open')).mode & 0o777).toBe(0o755);
    // A link to a folder is that folder (a ~/.cache kept elsewhere).
    symlinkSync(deep, join(tmp.dir, 'link'));
    expect(() => makeFolders(join(tmp.dir, 'link'), 0o700)).not.toThrow();
    makeFolders(join(tmp.dir, 'link', 'd'), 0o700);
    expect(statSync(join(deep, 'd')).isDirectory()).toBe(true);
  });

  it('a file where a folder should be: the file system\'s error', () => {
    writeFileSync(join(tmp.dir, 'file'), '');
    expect(() => makeFolders(join(tmp.dir, 'file'), 0o700)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(() => makeFolders(join(tmp.dir, 'file', 'x'), 0o700)).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });
});

