// Rotates the key in use (CommonJS): the new key is written to a new 0600 file before the old key
// is revoked; if the file cannot be written, the new key is revoked again and the old one stays.
//   node rotate-into-file.cjs ./new-key.txt
const { writeFile } = require('node:fs/promises');
const { createClient, RotationError } = require('@webcrawl/cli');

async function main() {
  const client = createClient();
  try {
    const rotation = await client.keys.rotate({
      store: (newKey) => writeFile(process.argv[2], newKey + '\n', { mode: 0o600, flag: 'wx' }),
    });
    console.log(`rotated ${rotation.old.id} → ${rotation.new.id} (${rotation.new.prefix}…)`);
  } catch (error) {
    if (!(error instanceof RotationError)) throw error;
    console.error(`rotation stopped at ${error.step}: ${error.message}`);
    process.exitCode = error.exitCode;
  } finally {
    await client.close();
  }
}
main();
