import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CrawlError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';

export type ConfigKey = 'base-url' | 'api-key';
export const CONFIG_KEYS: readonly ConfigKey[] = ['base-url', 'api-key'];

export type Profile = Partial<Record<ConfigKey, string>>;
export interface ConfigData {
  profiles: Record<string, Profile>;
}

/**
 * The config file: profiles, each with a base URL and an API key.
 *
 * Reading is a plain JSON.parse of the file (commands that only read pay nothing more);
 * writing goes through `conf`, which writes a temp file and renames it (atomic), mode 0600.
 * A file that does not parse is never overwritten: reads and writes both stop with an error
 * naming the file, so a hand-edited config is not lost to a silent reset.
 */
export class ConfigStore {
  readonly path: string;
  #data: ConfigData | undefined;

  constructor(path: string) {
    this.path = path;
  }

  read(): ConfigData {
    if (this.#data) return this.#data;
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return (this.#data = { profiles: {} });
      throw new CrawlError(`cannot read config file ${this.path}: ${describeFsError(error)}`, ExitCode.failure, {
        hint: 'check the permissions of the file and its folder, or point CRAWL_CONFIG_DIR elsewhere',
      });
    }
    this.#data = parseConfig(text, this.path);
    return this.#data;
  }

  profile(name: string): Profile {
    return this.read().profiles[name] ?? {};
  }

  /** Applies `change` to the profile and writes the whole file atomically with mode 0600. */
  async update(profileName: string, change: (profile: Profile) => void): Promise<void> {
    const data = structuredClone(this.read());
    const profile = { ...(data.profiles[profileName] ?? {}) };
    change(profile);
    if (Object.keys(profile).length === 0) delete data.profiles[profileName];
    else data.profiles[profileName] = profile;
    await writeConfig(this.path, data);
    this.#data = data;
  }
}

export function parseConfig(text: string, path: string): ConfigData {
  const fix = `fix it by hand or move it aside (mv ${path} ${path}.bak) and run \`crawl auth login\` again`;
  if (text.trim() === '') return { profiles: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CrawlError(`config file ${path} is not valid JSON`, ExitCode.failure, { hint: fix });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new CrawlError(`config file ${path} does not hold a JSON object`, ExitCode.failure, { hint: fix });
  }
  const profilesRaw = (raw as Record<string, unknown>).profiles;
  const profiles: Record<string, Profile> = {};
  if (profilesRaw !== undefined) {
    if (typeof profilesRaw !== 'object' || profilesRaw === null || Array.isArray(profilesRaw)) {
      throw new CrawlError(`config file ${path}: "profiles" is not an object`, ExitCode.failure, { hint: fix });
    }
    for (const [name, value] of Object.entries(profilesRaw)) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new CrawlError(`config file ${path}: profile "${name}" is not an object`, ExitCode.failure, { hint: fix });
      }
      const profile: Profile = {};
      for (const key of CONFIG_KEYS) {
        const v = (value as Record<string, unknown>)[key];
        if (typeof v === 'string') profile[key] = v;
      }
      profiles[name] = profile;
    }
  }
  return { profiles };
}

async function writeConfig(path: string, data: ConfigData): Promise<void> {
  try {
    // The folder holds a secret: create it private before conf creates it world-readable.
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const { default: Conf } = await import('conf');
    const conf = new Conf<Record<string, unknown>>({
      cwd: dirname(path),
      configName: 'config',
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
      // The file was validated by read(); conf re-reads it and must not reset it.
      projectName: 'crawl',
    });
    conf.store = data as unknown as Record<string, unknown>;
  } catch (error) {
    if (error instanceof CrawlError) throw error;
    throw new CrawlError(`cannot write config file ${path}: ${describeFsError(error)}`, ExitCode.failure, {
      hint: 'nothing was changed; check the permissions of the config folder or set CRAWL_CONFIG_DIR',
    });
  }
}

export function describeFsError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on device';
    case 'ENOENT':
      return 'no such file or directory';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    case 'EISDIR':
      return 'it is a folder';
    case 'EEXIST':
      return 'it already exists';
    default:
      return e?.code ?? (e instanceof Error ? e.message : String(error));
  }
}
