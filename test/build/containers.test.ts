// Which of esbuild's files go together into one file of the pack (src/build/containers.ts): a
// small graph of files, as a command, its work and the parts they load make it.
import { describe, expect, it } from 'vitest';
import { COMMON, containers, MAIN, type OutputFile } from '../../src/build/containers.js';

const file = (entryPoint: string | undefined, imports: string[] = [], dynamicImports: string[] = []): OutputFile => ({ imports, dynamicImports, entryPoint });

describe('containers', () => {
  const outputs = new Map<string, OutputFile>([
    [MAIN, file('src/main.ts', ['chunks/commander.cjs'], ['chunks/status.cjs', 'chunks/watch.cjs', 'chunks/list.cjs', 'chunks/factory.cjs', 'chunks/http.cjs', 'chunks/width.cjs', 'chunks/truncate.cjs'])],
    ['chunks/commander.cjs', file(undefined)],
    ['chunks/status.cjs', file('src/commands/job/lib/status.ts', ['chunks/view.cjs', 'chunks/settings.cjs', 'chunks/errors.cjs', 'chunks/commander.cjs'])],
    ['chunks/watch.cjs', file('src/commands/job/lib/watch.ts', ['chunks/view.cjs', 'chunks/errors.cjs'])],
    ['chunks/list.cjs', file('src/commands/keys/lib/list.ts', ['chunks/settings.cjs'])],
    ['chunks/factory.cjs', file('src/app/factory.ts', ['chunks/settings.cjs'])],
    ['chunks/http.cjs', file('src/app/http-layer.ts', ['chunks/errors.cjs'])],
    ['chunks/width.cjs', file('src/io/string-width.ts', ['chunks/ansi.cjs'])],
    ['chunks/truncate.cjs', file('src/io/cli-truncate.ts', ['chunks/ansi.cjs'])],
    ['chunks/view.cjs', file(undefined)],
    ['chunks/settings.cjs', file(undefined)],
    ['chunks/errors.cjs', file(undefined)],
    ['chunks/ansi.cjs', file(undefined)],
  ]);
  const into = containers(outputs);

  it("packs what main requires up front into main's file", () => {
    expect(into.get('chunks/commander.cjs')).toBe(MAIN);
  });

  it('gives each dynamically loaded file a file of its own', () => {
    for (const name of ['chunks/status.cjs', 'chunks/watch.cjs', 'chunks/factory.cjs', 'chunks/http.cjs']) expect(into.get(name)).toBe(name);
  });

  it("packs what one group's commands share together, what several groups or a part share into the common file", () => {
    expect(into.get('chunks/view.cjs')).toBe('chunks/job-shared.cjs');
    expect(into.get('chunks/settings.cjs')).toBe(COMMON);
    expect(into.get('chunks/errors.cjs')).toBe(COMMON);
  });

  it('packs what only parts loaded on demand share with the first of them', () => {
    expect(into.get('chunks/ansi.cjs')).toBe('chunks/truncate.cjs');
  });
});
