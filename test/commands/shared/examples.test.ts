// A command's examples in its help (src/commands/shared/examples.ts): fitted to the help's width,
// each still pasteable as the command it shows.
import { describe, expect, it } from 'vitest';
import { formatExamples } from '../../../src/commands/shared/examples.js';

describe('formatExamples', () => {
  it('comments wrapped and command lines broken at spaces outside quotes: each pastes back to the same command', () => {
    const line = "crawl keys rotate --yes --keep-old --to-command 'vault kv put secret/crawl api-key=-'";
    for (const width of [40, 50, 80, 120]) {
      const text = formatExamples([['keys rolled over a window: the old one stays active until keys revoke retires it', line]], width);
      // Only a word longer than a line (a quoted argument is one) may stick out, alone on its row.
      for (const row of text.split('\n')) expect(row.length <= width || /^ {6}\S.*\S$/.test(row) && !/ \\$/.test(row), row).toBe(true);
      const command = text.slice(text.indexOf('  $ ') + 4).trimEnd().replace(/ \\\n {6}/g, ' ');
      expect(command).toBe(line);
    }
  });
});
