#!/usr/bin/env node
// The entry point. CommonJS (bin/package.json says so): Node's ES module loader would add its own
// start-up to every command, and the bundle it loads is CommonJS for its code cache.
//
// `--version` alone is answered here, before anything else is loaded: it is what scripts call most
// often to check the tool is there. So are a help page off a terminal and `completion <shell>`,
// which shells run at every start: the build put both in the pack. Everything else goes to the
// launcher (src/launch/load-bundle.cts), which prints a help page it has kept from an earlier run,
// or runs the bundled CLI (dist/bundle, built by `npm run build`), which loads each command's code
// only when it runs.
'use strict';
const { join } = require('node:path');
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const version = JSON.parse(require('node:fs').readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version;
  write(Buffer.from(`${version}\n`), (error) => (failed(error), true));
} else if (!packedOutput(args)) {
  const { start } = require('../dist/launch/load-bundle.cjs');
  start(join(__dirname, '..', 'dist', 'bundle'), args);
}

/**
 * What the build packed for this line, printed: the help page of a line of command words ending in
 * --help or -h when stdout is not a terminal (the launcher's start() does the same, and the rest: a
 * terminal's page, a line the build made no page for, and what the CLI says when the page cannot be
 * written), and the script of `completion <shell>` on any stdout. false: not printed here.
 */
function packedOutput(args) {
  // The lines the launcher answers with a help page (its HELP_PAGE_LINE).
  const help = /^(?:[a-z][a-z0-9-]*\0){0,3}(?:--help|-h)$/.test(args.join('\0'));
  // A shell the build made no script for is not in the pack: the CLI says what it says of it.
  const script = args.length === 2 && args[0] === 'completion';
  if (!help && !script) return false;
  const fs = require('node:fs');
  let bytes;
  try {
    if (help) {
      // Only a character device can be a terminal, and /dev/null is not one: a stat, not the stream.
      const out = fs.fstatSync(1);
      if (out.isCharacterDevice() && out.rdev !== fs.statSync('/dev/null').rdev) return false;
    }
    // The pack: its build line, its index (a line of JSON), then what it holds.
    const fd = fs.openSync(join(__dirname, '..', 'dist', 'bundle', 'bundle.pack'), 'r');
    // The index is a few KB: one read of the head holds it (else the launcher reads on).
    const head = Buffer.allocUnsafe(16384);
    const read = fs.readSync(fd, head, 0, head.length, 0);
    const first = head.indexOf(10);
    const second = first < 0 ? -1 : head.indexOf(10, first + 1);
    if (second < 0 || second >= read) return false;
    // Spelled as the launcher's helpPageName and completionScriptName spell them, which the build packs.
    const name = help ? `help/${args.slice(0, -1).join(' ')}` : `completion/${args[1]}`;
    const at = JSON.parse(head.toString('utf8', first + 1, second))[name];
    if (!Array.isArray(at)) return false;
    bytes = Buffer.allocUnsafe(at[1]);
    if (fs.readSync(fd, bytes, 0, at[1], second + 1 + at[0]) !== at[1]) return false;
  } catch {
    return false;
  }
  // A reader already gone is no error; any other failure is the CLI's to report, in its words.
  return write(bytes, (error) => error.code === 'EPIPE');
}

/**
 * Straight to the file descriptor: building process.stdout loads Node's stream code (and, for a
 * pipe, its network code), most of what these answers would cost. What a pipe cannot take now
 * (non-blocking, full), the stream waits for. `cannot` decides on any other failure.
 */
function write(bytes, cannot) {
  let written = 0;
  try {
    written = require('node:fs').writeSync(1, bytes);
  } catch (error) {
    if (error.code !== 'EAGAIN') return cannot(error);
  }
  if (written < bytes.length) process.stdout.on('error', failed).write(bytes.subarray(written));
  return true;
}

/** As for every command: a closed pipe ends quietly, any other write error is one line, exit 1. */
function failed(error) {
  if (error.code !== 'EPIPE') process.stderr.write(`crawl: cannot write to standard output: ${error.code ?? error.message}\n`);
  process.exit(error.code === 'EPIPE' ? 0 : 1);
}
