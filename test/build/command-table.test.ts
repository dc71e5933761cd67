// The command table and the completion tree (src/build/command-table.ts) are what the command
// modules declare: committed, rewritten by `npm run build`, and checked here, so a run that lists
// a command from the table (a group's help, a suggestion) says what building it would say.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandTable } from '../../src/build/command-table.js';
import { ROOT } from '../../src/build/paths.js';
import { COMMAND_TABLE } from '../../src/commands/command-table.js';
import { groups, rootCommands } from '../../src/commands/index.js';

describe('the command table', () => {
  it('is what the command modules declare (run `npm run build` after changing a command, and commit what it rewrites)', async () => {
    for (const { path, text } of await commandTable()) {
      const committed = readFileSync(path, 'utf8');
      const [was, is] = [committed.split('\n'), text.split('\n')];
      const line = was.findIndex((value, i) => value !== is[i]);
      const where = line === -1 ? `it ends at line ${was.length}` : `line ${line + 1}: ${JSON.stringify(was[line])}, the modules make ${JSON.stringify(is[line] ?? '(nothing)')}`;
      expect(committed === text, `${relative(ROOT, path)} differs from the command modules (${where}): run \`npm run build\``).toBe(true);
    }
  });

  it('has every registered command, and nothing else', () => {
    const registered = [...groups.flatMap((g) => g.commands.map((c) => `${g.name} ${c.name}`)), ...rootCommands.map((c) => c.name)];
    expect(Object.keys(COMMAND_TABLE).sort()).toEqual(registered.sort());
    expect(COMMAND_TABLE['job status']).toEqual({ aliases: [], description: expect.stringContaining('show a job') as unknown, term: 'status [options] <id...>' });
  });
});
