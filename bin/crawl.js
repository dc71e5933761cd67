#!/usr/bin/env node
// The entry point. `--version` alone is answered here, before anything else is loaded: it is
// what scripts call most often to check the tool is there. Everything else goes to the bundled
// CLI (dist/bundle, built by `npm run build`), which loads each command's code only when it runs.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { readFileSync } = await import('node:fs');
  // As for every command: a closed pipe ends quietly, any other write error is one line, exit 1.
  process.stdout.on('error', (error) => {
    if (error.code !== 'EPIPE') process.stderr.write(`crawl: cannot write to standard output: ${error.code ?? error.message}\n`);
    process.exit(error.code === 'EPIPE' ? 0 : 1);
  });
  process.stdout.write(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version + '\n');
} else {
  const { main } = await import('../dist/bundle/main.js');
  const code = await main(args);
  // Exit once stdout has drained, so piped output is never cut short and no idle keep-alive
  // socket or timer holds the process open.
  if (process.stdout.writableLength > 0) {
    process.stdout.once('drain', () => process.exit(code));
  } else {
    process.exit(code);
  }
}
