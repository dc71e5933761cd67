#!/usr/bin/env node
// The entry point. CommonJS (bin/package.json says so): Node's ES module loader would add its own
// start-up to every command, and the bundle it loads is CommonJS for its code cache.
//
// `--version` alone is answered here, before anything else is loaded: it is what scripts call most
// often to check the tool is there. Everything else goes to the launcher (src/launch/load-bundle.cts),
// which prints a help page it has kept from an earlier run, or runs the bundled CLI (dist/bundle,
// built by `npm run build`), which loads each command's code only when it runs.
'use strict';
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { readFileSync, writeSync } = require('node:fs');
  const text = JSON.parse(readFileSync(require('node:path').join(__dirname, '..', 'package.json'), 'utf8')).version + '\n';
  // As for every command: a closed pipe ends quietly, any other write error is one line, exit 1.
  const failed = (error) => {
    if (error.code !== 'EPIPE') process.stderr.write(`crawl: cannot write to standard output: ${error.code ?? error.message}\n`);
    process.exit(error.code === 'EPIPE' ? 0 : 1);
  };
  try {
    // Straight to the file descriptor: building process.stdout loads Node's stream code (and, for
    // a pipe, its network code), most of what this answer would cost.
    writeSync(1, text);
  } catch (error) {
    // A pipe that cannot take it now (non-blocking, full): the stream waits for it.
    if (error.code !== 'EAGAIN') failed(error);
    else process.stdout.on('error', failed).write(text);
  }
} else {
  const { join } = require('node:path');
  const { start } = require('../dist/launch/load-bundle.cjs');
  start(join(__dirname, '..', 'dist', 'bundle'), args);
}
