// Which of esbuild's files go together into one file of the pack (src/build/containers.ts): a
// small graph of files, as a command, its work and the parts they load make it.
import { describe, expect, it } from 'vitest';
import { COMMON, containers, MAIN, type OutputFile } from '../../src/build/containers.js';

const file = (entryPoint: string | undefined, imports: string[] = [], dynamicImports: string[] = []): OutputFile => ({ imports, dynamicImports, entryPoint });

describe('containers', () => {
  const outputs = new Map<string, OutputFile>([
    [MAIN, file('src/main.ts', ['chunks/errors-main.cjs'], ['chunks/program.cjs', 'chunks/status.cjs', 'chunks/watch.cjs', 'chunks/list.cjs', 'chunks/factory.cjs', 'chunks/http.cjs', 'chunks/width.cjs', 'chunks/truncate.cjs'])],
    ['chunks/errors-main.cjs', file(undefined)],
    ['chunks/program.cjs', file('src/app/program.ts', ['chunks/commander.cjs', 'chunks/flags.cjs'], ['chunks/status-command.cjs', 'chunks/list-command.cjs'])],
    ['chunks/status-command.cjs', file('src/commands/job/status.ts', ['chunks/commander.cjs', 'chunks/flags.cjs'])],
    ['chunks/list-command.cjs', file('src/commands/keys/list.ts', ['chunks/commander.cjs', 'chunks/version.cjs'])],
    ['chunks/commander.cjs', file(undefined)],
    ['chunks/flags.cjs', file(undefined)],
    ['chunks/version.cjs', file(undefined)],
    ['chunks/status.cjs', file('src/commands/job/lib/status.ts', ['chunks/view.cjs', 'chunks/settings.cjs', 'chunks/errors.cjs'])],
    ['chunks/watch.cjs', file('src/commands/job/lib/watch.ts', ['chunks/view.cjs', 'chunks/errors.cjs'])],
    ['chunks/list.cjs', file('src/commands/keys/lib/list.ts', ['chunks/settings.cjs'])],
    ['chunks/factory.cjs', file('src/app/factory.ts', ['chunks/settings.cjs', 'chunks/version.cjs'])],
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
    expect(into.get('chunks/errors-main.cjs')).toBe(MAIN);
  });

  it("packs what the program shares only with the commands' declarations into the program's file; not what a run without the program loads", () => {
    expect(into.get('chunks/commander.cjs')).toBe('chunks/program.cjs');
    expect(into.get('chunks/flags.cjs')).toBe('chunks/program.cjs');
    // Shared with the factory, which Tab's completions load without the program.
    expect(into.get('chunks/version.cjs')).toBe(COMMON);
  });

  it('gives each dynamically loaded file a file of its own', () => {
    for (const name of ['chunks/program.cjs', 'chunks/status-command.cjs', 'chunks/status.cjs', 'chunks/watch.cjs', 'chunks/factory.cjs', 'chunks/http.cjs']) expect(into.get(name)).toBe(name);
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
