#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

const code = await main(process.argv.slice(2));
// Exit once stdout has drained, so piped output is never cut short and no idle keep-alive
// socket or timer holds the process open.
if (process.stdout.writableLength > 0) {
  process.stdout.once('drain', () => process.exit(code));
} else {
  process.exit(code);
}
