import { realpathSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { withoutByteOrderMark } from '../text/byte-order-mark.js';

/**
 * Replaces the config file with a document through `conf` (the project's config store), which
 * writes a temp file beside it with the given mode and renames it over the old one, so a reader,
 * a crash or a full disk never sees half a file and a secret is never readable by others, even
 * for a moment. The caller holds the config lock and has already read and validated the file;
 * conf re-reads it on construction, hence the tolerant deserialiser (an empty file is a valid,
 * empty config). The whole document is written, so fields crawl does not know survive. A symlink
 * (a config kept in a dotfiles repo) stays a symlink: its target is what gets replaced.
 */
export type ConfigWriter = (link: string, document: object, mode: number) => void;

/** Loads conf (its import is the slow part of a config write) before the caller takes the config lock, so the lock is held only while writing. */
export async function loadConfigWriter(): Promise<ConfigWriter> {
  const { default: Conf } = await import('conf');
  return (link, document, mode) => {
    const path = resolveLink(link);
    const extension = extname(path);
    const conf = new Conf<Record<string, unknown>>({
      cwd: dirname(path),
      configName: basename(path, extension),
      fileExtension: extension.replace(/^\./, ''),
      configFileMode: mode,
      projectName: 'crawl',
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
      serialize: (value) => JSON.stringify(value, null, 2) + '\n',
      deserialize: (marked) => {
        const text = withoutByteOrderMark(marked);
        return text.trim() === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      },
    });
    conf.store = document as Record<string, unknown>;
  };
}

function resolveLink(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
