// `npm run docs`: writes the generated documentation (docs/commands.md) from the help.
import { writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { COMMANDS_DOC, commandsDoc } from './commands-doc.js';
import { ROOT } from './paths.js';

await writeFile(COMMANDS_DOC, await commandsDoc());
process.stdout.write(`docs: ${relative(ROOT, COMMANDS_DOC)} written from the help\n`);
