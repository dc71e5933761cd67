// A profile's key, wherever it lives: the system keyring, the config file, or a secret manager
// reached through commands. Settings (config/settings.ts) picks the store the config file names;
// nothing else knows which one is in use.
import { CrawlError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';
import { CALLED_OFF } from '../../platform/deadline.js';

export type KeyStoreKind = 'keyring' | 'file' | 'command';

export const KEY_STORE_KINDS: readonly KeyStoreKind[] = ['keyring', 'file', 'command'];

export interface KeyStore {
  readonly kind: KeyStoreKind;
  /** Where the key lives, for people: "system keyring (Secret Service)", "config file, plaintext: <path>", "command: op …". */
  describe(): string;
  /** The key, or undefined when the store holds none. Bounded in time; rejects with a KeyStoreError. */
  read(signal: AbortSignal): Promise<string | undefined>;
  /** Stores the key, replacing the one there; the caller reads it back. Bounded in time. */
  write(key: string, signal: AbortSignal): Promise<void>;
  /** Removes the key; true when there was one. */
  erase(signal: AbortSignal): Promise<boolean>;
}

/**
 * A store that is there but failed: locked, refused, no answer in time, a command that exited
 * non-zero. Never a reason to fall back to another store: the message names the store and the
 * ways around it (exit 1).
 */
export class KeyStoreError extends CrawlError {
  constructor(message: string, hint?: string, cause?: unknown) {
    super(message, ExitCode.failure, { ...(hint === undefined ? {} : { hint }), ...(cause === undefined ? {} : { cause }) });
    this.name = 'KeyStoreError';
  }
}

/**
 * No keyring can be reached at all (no session bus, no Secret Service on it, the binding cannot
 * load): the one case where a write that named no store goes to the config file instead.
 */
export class KeyringUnavailableError extends KeyStoreError {
  readonly reason: string;

  constructor(reason: string, hint?: string) {
    super(`no system keyring is available: ${reason}`, hint);
    this.name = 'KeyringUnavailableError';
    this.reason = reason;
  }
}

/**
 * A keyring exists but this crawl cannot reach it: every entry of the bus address is a transport
 * crawl cannot speak (tcp:, an abstract socket on Node 20, ...), or the native binding cannot load
 * on a system that always has a keystore (macOS, Windows). Unlike KeyringUnavailableError this is
 * never a reason for the file store: the hint names --insecure-storage as the way around.
 */
export class KeyringUnreachableError extends KeyStoreError {
  readonly reason: string;

  constructor(reason: string, hint?: string) {
    super(`the system keyring cannot be reached by crawl: ${reason}`, hint);
    this.name = 'KeyringUnreachableError';
    this.reason = reason;
  }
}

/** How long a keyring call or a key command may take before crawl gives up on it. */
export interface KeyStoreBounds {
  /** Any call that no person is answering. */
  callMs: number;
  /** A call that may wait for a person to unlock the keyring (a dialog on the desktop). */
  unlockMs: number;
  /** key-command / key-store-command, whole. */
  commandMs: number;
}

export const DEFAULT_BOUNDS: KeyStoreBounds = { callMs: 5_000, unlockMs: 60_000, commandMs: 30_000 };

/** The bounds, with CRAWL_KEYRING_TIMEOUT / CRAWL_KEY_COMMAND_TIMEOUT (seconds) in force. */
export function boundsFrom(env: Readonly<Record<string, string | undefined>>): KeyStoreBounds {
  const seconds = (name: string): number | undefined => {
    const text = env[name];
    if (text === undefined || text.trim() === '') return undefined;
    const value = Number(text);
    if (!Number.isFinite(value) || value <= 0) throw new CrawlError(`${name} must be a number of seconds above 0 (got ${JSON.stringify(text.slice(0, 20))})`, ExitCode.usage);
    return Math.round(value * 1000);
  };
  const keyring = seconds('CRAWL_KEYRING_TIMEOUT');
  const command = seconds('CRAWL_KEY_COMMAND_TIMEOUT');
  return {
    callMs: keyring ?? DEFAULT_BOUNDS.callMs,
    unlockMs: keyring ?? DEFAULT_BOUNDS.unlockMs,
    commandMs: command ?? DEFAULT_BOUNDS.commandMs,
  };
}

/** A store's clock: deadlines only (the run's clock, so a test's fake clock bounds them too). */
export interface DeadlineClock {
  deadline(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * `work` given a signal that aborts when `runSignal` does (Ctrl-C: its reason is thrown) or when
 * `ms` pass (`timedOut()` is thrown). The race does not wait for work that ignores its signal, so
 * a call that never answers cannot hold the command.
 */
export async function bounded<T>(clock: DeadlineClock, ms: number, runSignal: AbortSignal, timedOut: () => Error, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  runSignal.throwIfAborted();
  const controller = new AbortController();
  const settled = new AbortController();
  const onRunAbort = (): void => controller.abort(runSignal.reason);
  runSignal.addEventListener('abort', onRunAbort, { once: true });
  const expired = clock.deadline(ms, settled.signal).then(() => {
    const error = timedOut();
    controller.abort(error);
    throw error;
  });
  expired.catch(() => undefined);
  const interrupted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true });
  });
  interrupted.catch(() => undefined);
  try {
    return await Promise.race([work(controller.signal), expired, interrupted]);
  } finally {
    settled.abort(CALLED_OFF);
    runSignal.removeEventListener('abort', onRunAbort);
  }
}
