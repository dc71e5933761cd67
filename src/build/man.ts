// Builds dist/man: a man page for `crawl` and one for each of its commands (`man crawl-job-watch`),
// from the help the CLI itself prints (read by help-text.ts, as on a 72-column terminal), so
// `crawl job watch --help`, `crawl help job watch` and the man page say the same thing. Each section of the help
// goes in as preformatted text, which keeps `<id>` and the alignment; marked-man renders the
// markdown to roff. package.json's `directories.man` installs the folder.
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { marked } from 'marked';
import markedMan from 'marked-man';
import { commandHelps, helpOf as helpIn } from './help-text.js';
import { ROOT } from './paths.js';

export const MAN_DIR = join(ROOT, 'dist', 'man');

/** What `crawl <words>` prints: as on a 72-column terminal, since man indents preformatted text by 7 columns of its 80. */
const helpOf = (words: readonly string[]): Promise<string> => helpIn(words, { columns: 72, terminal: true });

/** The help's sections: the usage line, the description, then each "Heading:" and its lines. */
function sections(help: string): { usage: string; description: string; rest: Array<[string, string]> } {
  const [usageBlock = '', description = '', ...parts] = help.trimEnd().split(/\n\n(?=\S)/);
  const rest: Array<[string, string]> = parts.map((part) => {
    const [heading = '', ...lines] = part.split('\n');
    return [heading.replace(/:$/, ''), lines.join('\n')];
  });
  return { usage: usageBlock.replace(/^Usage: /, ''), description, rest };
}

function page(name: string, help: string, seeAlso: readonly string[], extra: ReadonlyArray<[string, string]> = []): string {
  const { usage, description, rest } = sections(help);
  const fence = (text: string): string => '```\n' + text + '\n```';
  // Descriptions are our own words, but may quote a command in backticks or name `<id>`: taken as text.
  const plain = (text: string): string => text.replace(/[\\`*_[\]<>#]/g, '\\$&');
  const parts = [
    // NAME written out: marked-man's own, from the title, drops anything in angle brackets.
    `# ${name}(1)`,
    `## NAME\n\n${name} - ${plain(description.split('\n').join(' '))}`,
    `## SYNOPSIS\n\n${fence(usage)}`,
    `## DESCRIPTION\n\n${plain(description)}`,
    ...[...rest, ...extra].map(([heading, body]) => `## ${heading.toUpperCase()}\n\n${fence(body.replace(/^ {2}/gm, ''))}`),
    `## SEE ALSO\n\n${seeAlso.map((other) => `${other}(1)`).join(', ')}`,
  ];
  return parts.join('\n\n') + '\n';
}

async function main(): Promise<void> {
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  marked.use(markedMan);
  const { root, commands: pages } = await commandHelps({ columns: 72, terminal: true });
  const names = pages.map(({ words }) => ['crawl', ...words].join('-'));
  await rm(MAN_DIR, { recursive: true, force: true });
  await mkdir(MAN_DIR, { recursive: true });
  const render = (markdown: string): string =>
    // manVersion and manual are marked-man's options, unknown to marked's types.
    marked.parse(markdown, { async: false, ...({ manVersion: version, manual: 'crawl manual' } as object) }) as string;
  const topics: Array<[string, string]> = [
    ['Exit codes', (await helpOf(['help', 'exit-codes'])).trimEnd()],
    ['Environment', (await helpOf(['help', 'environment'])).trimEnd()],
  ];
  await writeFile(join(MAN_DIR, 'crawl.1'), render(page('crawl', root, names, topics)));
  for (const [i, { words, help }] of pages.entries()) {
    const name = names[i] as string;
    // crawl(1), and the other commands of the same group.
    const siblings = names.filter((other) => other !== name && other.startsWith(`crawl-${words[0] ?? ''}-`));
    await writeFile(join(MAN_DIR, `${name}.1`), render(page(name, help, ['crawl', ...siblings])));
  }
  process.stdout.write(`man: ${pages.length + 1} pages in dist/man/\n`);
}

await main();
