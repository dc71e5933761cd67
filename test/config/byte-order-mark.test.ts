// A config file saved with a UTF-8 byte-order mark (older Notepad, PowerShell 5.1's
// `Set-Content -Encoding UTF8`) is read, and a write replaces it with plain UTF-8.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { tempDir } from '../support/harness.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('a config file with a byte-order mark', () => {
  it('is read, and rewritten without it; what was there is kept', async () => {
    const path = join(tmp.dir, 'config.json');
    writeFileSync(path, '\uFEFF{"profiles":{"default":{"base-url":"https://crawl.example"}},"note":"kept"}\r\n', { mode: 0o600 });
    expect(new ConfigStore(path).profile('default')).toEqual({ 'base-url': 'https://crawl.example' });
    await new ConfigStore(path).update('work', (profile) => {
      profile['base-url'] = 'https://work.example';
    });
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(false);
    expect(JSON.parse(text)).toEqual({
      profiles: { default: { 'base-url': 'https://crawl.example' }, work: { 'base-url': 'https://work.example' } },
      note: 'kept',
    });
  });

  it('a mark alone is an empty config; a mark before what is not JSON is still refused', () => {
    const empty = join(tmp.dir, 'empty.json');
    writeFileSync(empty, '\uFEFF', { mode: 0o600 });
    expect(new ConfigStore(empty).read().profiles).toEqual({});
    const broken = join(tmp.dir, 'broken.json');
    writeFileSync(broken, '\uFEFF{not json', { mode: 0o600 });
    expect(() => new ConfigStore(broken).read()).toThrow(/is not valid JSON/);
  });
});
