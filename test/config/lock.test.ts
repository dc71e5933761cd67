// The config lock, driven directly: real files in a temp folder, a fake clock (waits cost nothing
// and are asserted), and a file system that can pause one claimant between two calls while
// another runs. What is proved: two holders never at once, whatever the interleaving of a
// takeover or a release; the lock is keyed by the file's real path; waits outlast staleness.
// Then through the CLI, runs sharing this process: writers racing for one file, and a lock that is
// not a file crawl made. Writers in separate processes: test/process/races.test.ts.
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envOf, folderWith as privateFolderWith } from '../support/settings.js';
import { ConfigLock, type LockFs, lockPathFor, nodeLockFs } from '../../src/config/lock.js';
import { CrawlError } from '../../src/errors.js';
import { quotingFor, shellQuote } from '../../src/text/shell.js';
import { ConfigStore } from '../../src/config/store.js';
import { fifoSpool } from '../support/fifos.js';
import { runCli, tempDir } from '../support/harness.js';
import { clockWatching, fakeClock as sharedFakeClock, type FakeClock } from '../support/fake-clock.js';
import { configProfile, expectNoRotatedKeyLost } from '../support/keys.js';
import { configFolderWith, deadPid, holdConfigLock } from '../support/local-faults.js';
import { sandboxFixture, type SandboxFixture } from '../support/sandbox.js';

let tmp: { dir: string; cleanup: () => void };
let n = 0;
/** Needed while the tables below are built, before any hook runs. */
const DEAD = deadPid();
beforeAll(() => {
  tmp = tempDir('crawl-lock-');
});
afterAll(() => tmp.cleanup());

/**
 * Time as the lock sees it: the tests' fake clock (a pause moves time on and ends), with a gate:
 * while `gate` is set, a pause, once time has moved, waits for it before it ends.
 */
type GatedClock = FakeClock & { gate: Promise<void> | undefined };

function fakeClock(start = Date.now()): GatedClock {
  const clock = Object.assign(sharedFakeClock(start), { gate: undefined as Promise<void> | undefined });
  const sleep = clock.sleep;
  clock.sleep = async (ms, signal) => {
    await sleep(ms, signal);
    if (clock.gate) await clock.gate;
  };
  return clock;
}

type Op = 'rename' | 'unlink' | 'link' | 'append';

interface Stop {
  /** Resolves once a call has arrived at this stop and is waiting. */
  reached: Promise<void>;
  resume(): void;
}

/**
 * The real file system, with stops: the first call of a given kind on a given path waits at its
 * stop until `resume()`. 'move' stops the first rename or unlink, whichever takes the lock away.
 */
function pausingFs(base: LockFs = nodeLockFs): LockFs & { stopAt(op: Op | 'move', path: string): Stop } {
  const stops: Array<{ op: Op | 'move'; path: string; arrive: () => void; resumed: Promise<void>; used: boolean }> = [];
  const pass = async (called: Op, target: string): Promise<void> => {
    const stop = stops.find((s) => !s.used && s.path === target && (s.op === called || (s.op === 'move' && (called === 'rename' || called === 'unlink'))));
    if (stop === undefined) return;
    stop.used = true;
    stop.arrive();
    await stop.resumed;
  };
  return {
    stopAt(op, path) {
      let arrive!: () => void;
      let resume!: () => void;
      const reached = new Promise<void>((r) => (arrive = r));
      const resumed = new Promise<void>((r) => (resume = r));
      stops.push({ op, path, arrive, resumed, used: false });
      return { reached, resume };
    },
    create: (p, text) => base.create(p, text),
    read: (p) => base.read(p),
    async append(p, text, judged) {
      await pass('append', p);
      return base.append(p, text, judged);
    },
    async rename(from, to) {
      await pass('rename', from);
      return base.rename(from, to);
    },
    async unlink(p) {
      await pass('unlink', p);
      return base.unlink(p);
    },
    async link(existing, p) {
      await pass('link', p);
      return base.link(existing, p);
    },
  };
}

/** Lets the other party's promise chains run (file calls here are promise-wrapped, not timers). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (check()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`never happened: ${what}`);
}

function configFolder(): { dir: string; config: string; lock: string } {
  const dir = join(tmp.dir, `cfg-${++n}`);
  mkdirSync(dir, { mode: 0o700 });
  const config = join(dir, 'config.json');
  writeFileSync(config, '{}\n', { mode: 0o600 });
  return { dir, config, lock: `${config}.lock` };
}

function age(path: string, ms: number): void {
  const past = new Date(Date.now() - ms);
  utimesSync(path, past, past);
}

const lockOf = (pid: number, host = hostname(), token = `t${pid}`): string => JSON.stringify({ pid, host, token }) + '\n';

/** Locks that a claimant must judge stale at once (as the real clock reads their age). */
const STALE_FORMS: Array<[string, (lock: string) => void]> = [
  ['left by a dead pid on this machine', (lock) => writeFileSync(lock, lockOf(DEAD))],
  ['empty (killed between create and write), 5 s old', (lock) => (writeFileSync(lock, ''), age(lock, 5_000))],
  ['half-written, 5 s old', (lock) => (writeFileSync(lock, '{"pid":12'), age(lock, 5_000))],
  ["another machine's, a minute old", (lock) => (writeFileSync(lock, lockOf(4242, 'elsewhere.example')), age(lock, 60_000))],
];

/** Who holds the lock, as the holders themselves believe: never more than one at a time. */
function holders(): { enter(name: string): void; leave(name: string): void; max: () => number; now: () => string[] } {
  const inside = new Set<string>();
  let max = 0;
  return {
    enter(name) {
      inside.add(name);
      max = Math.max(max, inside.size);
    },
    leave: (name) => void inside.delete(name),
    max: () => max,
    now: () => [...inside],
  };
}

describe('taking over a stale lock', () => {
  it.each(STALE_FORMS)('lock %s: a claimant parked between judging it stale and claiming it never holds beside the one that got there first', async (_form, plant) => {
    const { dir, config, lock } = configFolder();
    plant(lock);
    const who = holders();
    const fsA = pausingFs();
    const claim = fsA.stopAt('append', lock);
    const clockA = fakeClock();
    // A's waits stay pending until B is done, so what A does meanwhile is all it can do.
    let bDone!: () => void;
    clockA.gate = new Promise((r) => (bDone = r));
    let aLock: ConfigLock | undefined;
    const a = ConfigLock.acquire(config, { fs: fsA, clock: clockA }).then((l) => {
      who.enter('A');
      aLock = l;
      return l;
    });
    await claim.reached;

    const b = await ConfigLock.acquire(config, { clock: fakeClock() });
    who.enter('B');
    const bFile = readFileSync(lock, 'utf8');
    const bIno = statSync(lock).ino;
    expect(JSON.parse(bFile).pid).toBe(process.pid);

    claim.resume();
    await until(() => aLock !== undefined || clockA.sleeps.length > 0, 'A holds or waits');
    expect(who.now()).toEqual(['B']);
    // B's lock is where it was, the very file, untouched (A's claim was for the lock now gone).
    expect([readFileSync(lock, 'utf8'), statSync(lock).ino]).toEqual([bFile, bIno]);
    expect(readdirSync(dir).sort()).toEqual(['config.json', 'config.json.lock']);

    who.leave('B');
    await b.release();
    bDone();
    const mine = await a;
    expect(readFileSync(lock, 'utf8')).not.toBe(bFile);
    expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(process.pid);
    who.leave('A');
    await mine.release();
    expect(who.max()).toBe(1);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it.each(STALE_FORMS)('lock %s: a claimant parked after winning, before removing it: the others wait for its claim, then it alone holds', async (_form, plant) => {
    const { dir, config, lock } = configFolder();
    plant(lock);
    const fsA = pausingFs();
    const removal = fsA.stopAt('unlink', lock);
    const got: string[] = [];
    const a = ConfigLock.acquire(config, { fs: fsA, clock: fakeClock() }).then((l) => (got.push('A'), l));
    await removal.reached;
    // The lock is still there, now with A's claim on it: B waits on A, whatever it judged.
    expect(readFileSync(lock, 'utf8')).toContain('\nclaim ');
    const clockB = fakeClock();
    let bGo!: () => void;
    clockB.gate = new Promise((r) => (bGo = r));
    const b = ConfigLock.acquire(config, { clock: clockB }).then((l) => (got.push('B'), l));
    await until(() => clockB.sleeps.length > 0, 'B waits');
    expect(got).toEqual([]);
    removal.resume();
    const aLock = await a;
    expect(got).toEqual(['A']);
    expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(process.pid);
    await aLock.release();
    bGo();
    await (await b).release();
    expect(got).toEqual(['A', 'B']);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it.each(STALE_FORMS)('lock %s: two claimants side by side, each parked at its claim in turn: exactly one holds', async (_form, plant) => {
    const { dir, config, lock } = configFolder();
    plant(lock);
    const [fsA, fsB] = [pausingFs(), pausingFs()];
    const [claimA, claimB] = [fsA.stopAt('append', lock), fsB.stopAt('append', lock)];
    const [clockA, clockB] = [fakeClock(), fakeClock()];
    let release!: () => void;
    clockA.gate = clockB.gate = new Promise((r) => (release = r));
    const got: string[] = [];
    const a = ConfigLock.acquire(config, { fs: fsA, clock: clockA }).then((l) => (got.push('A'), l));
    const b = ConfigLock.acquire(config, { fs: fsB, clock: clockB }).then((l) => (got.push('B'), l));
    // Both judged the lock stale and stand at their claim.
    await Promise.all([claimA.reached, claimB.reached]);
    claimB.resume();
    claimA.resume();
    await until(() => got.length === 1 && clockA.sleeps.length + clockB.sleeps.length > 0, 'one holds, the other waits');
    expect(got).toHaveLength(1);
    const first = got[0] === 'A' ? a : b;
    await (await first).release();
    release();
    const second = await (got[0] === 'A' ? b : a);
    expect(got).toHaveLength(2);
    await second.release();
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  const claimOf = (pid: number, host: string, at: number): string => `\nclaim ${JSON.stringify({ pid, host, token: `c${pid}`, at })}\n`;

  it('a claim whose process has ended (killed between claiming and removing) is passed over at once', async () => {
    const { dir, config, lock } = configFolder();
    writeFileSync(lock, lockOf(DEAD) + claimOf(DEAD, hostname(), Date.now()));
    const clock = fakeClock();
    const l = await ConfigLock.acquire(config, { clock });
    expect(clock.elapsed()).toBe(0);
    expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(process.pid);
    await l.release();
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('a claim made on another machine is waited for until it is older than the stale time, then passed over', async () => {
    const { dir, config, lock } = configFolder();
    const clock = fakeClock();
    writeFileSync(lock, lockOf(DEAD) + claimOf(4242, 'elsewhere.example', clock.now()));
    const notices: string[] = [];
    const l = await ConfigLock.acquire(config, { clock, notice: (line) => notices.push(line) });
    expect(clock.elapsed()).toBeGreaterThan(3_000);
    expect(clock.elapsed()).toBeLessThan(5_000);
    expect(notices).toEqual([`waiting for another crawl process (pid 4242) to finish writing ${config}`]);
    await l.release();
    expect(readdirSync(dir)).toEqual(['config.json']);
  });
});

describe('a release racing a takeover', () => {
  // The holder looks abandoned to the others (its pid is not seen running, or it is on another
  // machine and stopped past the stale time); it releases just as one of them takes over.
  const LOOKS_ABANDONED: Array<[string, (lock: string) => void]> = [
    ['its pid is not seen running here', (lock) => rewrite(lock, { pid: DEAD })],
    ['it wrote the lock on another machine a minute ago', (lock) => (rewrite(lock, { host: 'elsewhere.example' }), age(lock, 60_000))],
  ];

  function rewrite(lock: string, fields: Record<string, unknown>): void {
    const held = JSON.parse(readFileSync(lock, 'utf8')) as Record<string, unknown>;
    writeFileSync(lock, JSON.stringify({ ...held, ...fields }) + '\n');
  }

  const noLinks: LockFs = {
    ...nodeLockFs,
    link: () => Promise.reject(Object.assign(new Error('link: operation not permitted'), { code: 'EPERM' })),
  };
  const CASES = [
    ...LOOKS_ABANDONED.map(([form, abandon]) => [form, abandon, nodeLockFs] as const),
    // The release moves the new holder's lock away and puts it back as an exclusive copy.
    ...LOOKS_ABANDONED.map(([form, abandon]) => [`${form}, on a file system without hard links`, abandon, noLinks] as const),
  ];

  it.each(CASES)('holder parked in release as its lock is taken over (%s): the new holder keeps the lock, a third waits', async (_form, abandon, base) => {
    const { dir, config, lock } = configFolder();
    const fsH = pausingFs(base);
    const letGo = fsH.stopAt('move', lock);
    const h = await ConfigLock.acquire(config, { fs: fsH, clock: fakeClock() });
    abandon(lock);
    const released = h.release();
    await letGo.reached;

    const t = await ConfigLock.acquire(config, { clock: fakeClock() });
    const tFile = readFileSync(lock, 'utf8');
    letGo.resume();
    await released;
    expect(readFileSync(lock, 'utf8')).toBe(tFile);
    expect(readdirSync(dir).sort()).toEqual(['config.json', 'config.json.lock']);

    // T holds: a third writer waits for it and gives up, rather than getting in beside it.
    const clockU = fakeClock();
    const u = await ConfigLock.acquire(config, { clock: clockU }).then(
      (l) => l,
      (error: unknown) => error,
    );
    expect(u).toBeInstanceOf(CrawlError);
    expect((u as CrawlError).message).toContain(`being written by another crawl process (pid ${process.pid})`);
    expect(clockU.elapsed()).toBeGreaterThanOrEqual(5_000);
    await t.release();
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('a release of a lock that is still its own removes it; one already taken over and released is a no-op', async () => {
    const { dir, config, lock } = configFolder();
    const first = await ConfigLock.acquire(config, { clock: fakeClock() });
    await first.release();
    expect(readdirSync(dir)).toEqual(['config.json']);
    // Released twice, or after someone else removed it: nothing happens, nothing is thrown.
    await first.release();
    const second = await ConfigLock.acquire(config, { clock: fakeClock() });
    const secondFile = readFileSync(lock, 'utf8');
    await first.release();
    expect(readFileSync(lock, 'utf8')).toBe(secondFile);
    await second.release();
    expect(readdirSync(dir)).toEqual(['config.json']);
  });
});

describe('waiting, on a fake clock', () => {
  const GIVE_UP = 5_000;
  const POLL = 20;

  /** Plants `content` as the lock, starts the clock at its mtime, and acquires. */
  async function acquireAgainst(content: string, agedMs = 0): Promise<{ clock: FakeClock; notices: string[]; outcome: ConfigLock | CrawlError; config: string; lock: string; dir: string }> {
    const { dir, config, lock } = configFolder();
    writeFileSync(lock, content);
    if (agedMs > 0) age(lock, agedMs);
    const clock = fakeClock(statSync(lock).mtimeMs + agedMs);
    const notices: string[] = [];
    const outcome = await ConfigLock.acquire(config, { clock, notice: (line) => notices.push(line) }).catch((error: unknown) => {
      if (error instanceof CrawlError) return error;
      throw error;
    });
    return { clock, notices, outcome, config, lock, dir };
  }

  it.each([
    ['a live crawl on this machine, fresh', lockOf(process.pid)],
    ['a live crawl on this machine, an hour old (a stuck writer is named, never robbed)', lockOf(process.pid), 3_600_000],
  ] as Array<[string, string, number?]>)('held by %s: one notice after 0.3 s, gives up after 5 s naming the pid and the lock; the lock stays', async (_form, content, agedMs = 0) => {
    const { clock, notices, outcome, config, lock } = await acquireAgainst(content, agedMs);
    expect(outcome).toBeInstanceOf(CrawlError);
    const error = outcome as CrawlError;
    expect([error.exitCode, error.message, error.hint]).toEqual([
      1,
      `the config file ${config} is being written by another crawl process (pid ${process.pid}); nothing was changed`,
      `try again; if no crawl is running, remove ${lock}`,
    ]);
    expect(notices).toEqual([`waiting for another crawl process (pid ${process.pid}) to finish writing ${config}`]);
    expect(clock.elapsed()).toBeGreaterThanOrEqual(GIVE_UP);
    expect(clock.elapsed()).toBeLessThan(GIVE_UP + POLL);
    expect(new Set(clock.sleeps)).toEqual(new Set([POLL]));
    expect(readFileSync(lock, 'utf8')).toBe(content);
  });

  it.each([
    ['left by a dead pid on this machine', 0, lockOf(DEAD), 0],
    ['left by a dead pid, written without a token', 0, JSON.stringify({ pid: DEAD, host: hostname() }), 0],
    ["another machine's, fresh (stale at 3 s, before the 5 s give-up)", 3_000, lockOf(4242, 'elsewhere.example'), 0],
    ["another machine's, 10 s old", 0, lockOf(4242, 'elsewhere.example'), 10_000],
    ['empty (killed between create and write), fresh', 1_000, '', 0],
    ['empty, 5 s old', 0, '', 5_000],
    ['half-written JSON, fresh', 1_000, '{"pid":', 0],
    ['with a pid that is no pid (-1), fresh', 1_000, lockOf(-1), 0],
    ['with a pid that is no pid (1.5), fresh', 1_000, JSON.stringify({ pid: 1.5, host: hostname(), token: 'x' }), 0],
  ] as Array<[string, number, string, number]>)('a lock %s: taken over after %i ms, as soon as it is stale and before any give-up', async (_form, staleAfter, content, agedMs) => {
    const { clock, notices, outcome, lock, dir } = await acquireAgainst(content, agedMs);
    expect(outcome).toBeInstanceOf(ConfigLock);
    const held = JSON.parse(readFileSync(lock, 'utf8')) as { pid: number; host: string };
    expect([held.pid, held.host]).toEqual([process.pid, hostname()]);
    expect(clock.elapsed()).toBeGreaterThanOrEqual(staleAfter);
    expect(clock.elapsed()).toBeLessThanOrEqual(staleAfter + POLL);
    expect(clock.elapsed()).toBeLessThan(GIVE_UP);
    expect(notices).toHaveLength(staleAfter >= 300 ? 1 : 0);
    await (outcome as ConfigLock).release();
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('a wait ends when the signal aborts: rejected with its reason, the lock untouched', async () => {
    const { config, lock } = configFolder();
    writeFileSync(lock, lockOf(process.pid));
    const clock = fakeClock();
    const controller = new AbortController();
    const reason = new Error('interrupted');
    const sleep = clock.sleep;
    clock.sleep = async (ms, signal) => {
      if (clock.sleeps.length === 10) controller.abort(reason);
      return sleep(ms, signal);
    };
    await expect(ConfigLock.acquire(config, { clock, signal: controller.signal })).rejects.toBe(reason);
    // Ten pauses waited out; the eleventh, begun as the signal aborted, ended it.
    expect(clock.sleeps).toHaveLength(11);
    expect(clock.elapsed()).toBe(clock.sleeps.slice(0, 10).reduce((a, b) => a + b, 0));
    expect(readFileSync(lock, 'utf8')).toBe(lockOf(process.pid));
  });
});

describe('the lock is keyed by the real path of the config file', () => {
  /** Each form gives two paths that name one config file, and that file's real path. */
  const FORMS: Array<[string, () => { one: string; two: string; real: string }]> = [
    ['two symlinks in two folders', () => {
      const { config } = configFolder();
      const [a, b] = [configFolder(), configFolder()];
      for (const f of [a, b]) symlinkLink(config, f.config);
      return { one: a.config, two: b.config, real: config };
    }],
    ['a chain of symlinks and the file itself', () => {
      const { config } = configFolder();
      const a = configFolder();
      const b = configFolder();
      symlinkLink(config, a.config);
      symlinkLink(a.config, b.config);
      return { one: config, two: b.config, real: config };
    }],
    ['a relative symlink', () => {
      const { dir, config } = configFolder();
      const other = join(dir, 'other.json');
      symlinkSync('config.json', other);
      return { one: other, two: config, real: config };
    }],
    ['a symlinked folder', () => {
      const { dir, config } = configFolder();
      const linked = join(tmp.dir, `linked-${++n}`);
      symlinkSync(dir, linked);
      return { one: join(linked, 'config.json'), two: config, real: config };
    }],
    ['a config not yet written, reached through a symlinked folder', () => {
      const dir = join(tmp.dir, `fresh-${++n}`);
      mkdirSync(dir, { mode: 0o700 });
      const linked = join(tmp.dir, `linked-${++n}`);
      symlinkSync(dir, linked);
      return { one: join(linked, 'config.json'), two: join(dir, 'config.json'), real: join(dir, 'config.json') };
    }],
  ];

  /** Replaces the config file `link` (made by configFolder) with a symlink to `target`. */
  function symlinkLink(target: string, link: string): void {
    rmSync(link);
    symlinkSync(target, link);
  }

  it.each(FORMS)('%s: one lock, beside the real file; a writer through the other path waits for it', async (_form, make) => {
    const { one, two, real } = make();
    expect(lockPathFor(one)).toBe(`${real}.lock`);
    expect(lockPathFor(two)).toBe(`${real}.lock`);
    const held = await ConfigLock.acquire(one, { clock: fakeClock() });
    expect(statSync(`${real}.lock`).isFile()).toBe(true);
    const clock = fakeClock();
    const other = await ConfigLock.acquire(two, { clock }).catch((error: unknown) => error);
    expect(other).toBeInstanceOf(CrawlError);
    expect((other as CrawlError).hint).toBe(`try again; if no crawl is running, remove ${real}.lock`);
    expect(clock.elapsed()).toBeGreaterThanOrEqual(5_000);
    await held.release();
    const after = await ConfigLock.acquire(two, { clock: fakeClock() });
    await after.release();
    expect(() => statSync(`${real}.lock`)).toThrow();
  });

  it('a dangling symlink: the lock goes beside the link, where the write will land', () => {
    const { dir } = configFolder();
    const link = join(dir, 'dangling.json');
    symlinkSync(join(dir, 'missing', 'config.json'), link);
    expect(lockPathFor(link)).toBe(`${link}.lock`);
  });
});

describe('through the CLI: a dead holder, one file by two paths', () => {
  // The config lock between concurrent writers: `crawl config set` runs racing to take over a lock
  // a dead process left, and writers reaching one config file through two symlinked paths. Each time
  // the file stays whole JSON with every write in, and nothing is left beside it. Here the runs share
  // this process; writers in separate processes hammering one config while stale locks keep
  // appearing, and a writer killed mid-write, are in test/process/races.test.ts.
  let tmp: { dir: string; cleanup: () => void };
  let n = 0;
  beforeAll(() => {
    tmp = tempDir('crawl-lock-processes-');
  });
  afterAll(() => tmp.cleanup());

  function folder(): string {
    const dir = join(tmp.dir, `cfg-${++n}`);
    mkdirSync(dir, { mode: 0o700 });
    return dir;
  }

  function deadLock(): string {
    return JSON.stringify({ pid: deadPid(), host: hostname(), token: `dead-${++n}` }) + '\n';
  }

  describe('crawl config set against a lock a dead process left', () => {
    it.concurrent.for([1, 2, 3])('four at once, each its own profile (round %i): all exit 0, every profile in, the lock gone', async (round, { expect }) => {
      const dir = folder();
      const config = join(dir, 'config.json');
      writeFileSync(config, JSON.stringify({ profiles: {} }), { mode: 0o600 });
      writeFileSync(`${config}.lock`, deadLock());
      const names = ['a', 'b', 'c', 'd'].map((p) => `${p}${round}`);
      const results = await Promise.all(
        names.map((p) => runCli(['config', 'set', 'base-url', `https://${p}.example`, '--profile', p], { env: { CRAWL_CONFIG_DIR: dir } })),
      );
      for (const r of results) expect([r.code, r.stderr.startsWith('Set ')], r.stderr).toEqual([0, true]);
      const profiles = (JSON.parse(readFileSync(config, 'utf8')) as { profiles: Record<string, unknown> }).profiles;
      expect(Object.keys(profiles).sort()).toEqual(names);
      for (const p of names) expect(profiles[p]).toEqual({ 'base-url': `https://${p}.example` });
      expect(readdirSync(dir)).toEqual(['config.json']);
    });
  });

  describe('one config file reached through two symlinked paths', () => {
    it.concurrent.for([1, 2])('writers through either link take one lock (race %i): every profile in, the links still links', async (race, { expect }) => {
      const real = folder();
      const config = join(real, 'config.json');
      writeFileSync(config, JSON.stringify({ profiles: {} }), { mode: 0o600 });
      const [one, two] = [folder(), folder()];
      for (const d of [one, two]) symlinkSync(config, join(d, 'config.json'));
      const runs = ['a', 'b', 'c'].flatMap((p) => [
        { dir: one, profile: `${p}${race}-one` },
        { dir: two, profile: `${p}${race}-two` },
      ]);
      const results = await Promise.all(
        runs.map(({ dir, profile }) => runCli(['config', 'set', 'base-url', `https://${profile}.example`, '--profile', profile], { env: { CRAWL_CONFIG_DIR: dir } })),
      );
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      const profiles = (JSON.parse(readFileSync(config, 'utf8')) as { profiles: Record<string, unknown> }).profiles;
      expect(Object.keys(profiles).sort()).toEqual(runs.map((r) => r.profile).sort());
      expect(readdirSync(real)).toEqual(['config.json']);
      for (const d of [one, two]) {
        expect(readdirSync(d)).toEqual(['config.json']);
        expect(lstatSync(join(d, 'config.json')).isSymbolicLink()).toBe(true);
      }
      expect(readFileSync(join(one, 'config.json'), 'utf8')).toBe(readFileSync(config, 'utf8'));
    });
  });
});

describe('two runs writing at once', () => {
  // Two crawl runs writing one config file at once: `config set` against `config set`, and
  // `keys rotate` against `keys rotate`. The file is always whole JSON holding one of the results;
  // no change is silently undone; and no key the service accepts is lost (every key a race created
  // is in the config or was printed by the run that made it). Also the write lock's own faults.
  // Here the runs share this process (their file-system calls still interleave); the same races
  // between separate processes, and a writer killed (-9) mid-write, are in test/process/races.test.ts.
  let fx: SandboxFixture;
  let tmp: { dir: string; cleanup: () => void };
  beforeAll(async () => {
    fx = await sandboxFixture({ seed: false });
    tmp = tempDir('crawl-local-races-');
  });
  afterAll(async () => {
    tmp.cleanup();
    await fx.close();
  });

  const freshFolder = (doc?: unknown): { dir: string; file: string } => configFolderWith(tmp.dir, doc);

  describe('config set against config set', () => {
    // Four folders at once. Not a hunt for a lucky interleaving (the lock's own interleavings are
    // pinned above, on a fake clock and a file system that stops a claimant): two whole runs
    // through the lock, four times over.
    it.concurrent.for([1, 2, 3, 4])('the same setting (lane %i): always whole JSON holding one of the two values, nothing left behind', async (lane, { expect }) => {
      const { dir, file } = freshFolder({ profiles: { default: { 'base-url': 'https://start.example/' } } });
      const env = { CRAWL_CONFIG_DIR: dir };
      for (let round = 0; round < 2; round++) {
        const [a, b] = await Promise.all([
          runCli(['config', 'set', 'base-url', `https://a${lane}-${round}.example`], { env }),
          runCli(['config', 'set', 'base-url', `https://b${lane}-${round}.example`], { env }),
        ]);
        expect([a.code, b.code, a.stderr.startsWith('Set '), b.stderr.startsWith('Set ')]).toEqual([0, 0, true, true]);
        const value = JSON.parse(readFileSync(file, 'utf8')).profiles.default['base-url'];
        expect([`https://a${lane}-${round}.example`, `https://b${lane}-${round}.example`]).toContain(value);
        // No temp file or lock left in the folder.
        expect(readdirSync(dir)).toEqual(['config.json']);
      }
    });

    it.concurrent('different profiles at once: neither change is lost', async ({ expect }) => {
      const { dir, file } = freshFolder();
      const env = { CRAWL_CONFIG_DIR: dir };
      for (let round = 0; round < 3; round++) {
        await Promise.all(
          ['a', 'b', 'c'].map((p) => runCli(['config', 'set', 'base-url', `https://${p}${round}.example`, '--profile', `${p}${round}`], { env })),
        );
      }
      const profiles = JSON.parse(readFileSync(file, 'utf8')).profiles as Record<string, unknown>;
      expect(Object.keys(profiles).sort()).toEqual(['a0', 'a1', 'a2', 'b0', 'b1', 'b2', 'c0', 'c1', 'c2']);
      expect(profiles.b2).toEqual({ 'base-url': 'https://b2.example' });
    });
  });

  describe('keys rotate against keys rotate', () => {
    it.concurrent.for([1, 2, 3])('no key the service accepts is lost, and the config holds one that works (race %i)', async (race, { expect }) => {
      const old = fx.sandbox.addKey(`raced-${race}`);
      const profile = configProfile(fx.sandbox, old.key);
      try {
        const env = { ...fx.env, ...profile.env };
        const results = await Promise.all([runCli(['keys', 'rotate', '--yes'], { env }), runCli(['keys', 'rotate', '--yes'], { env })]);
        await expectNoRotatedKeyLost(expect, fx.sandbox, profile.file, `raced-${race}`, results);
      } finally {
        profile.cleanup();
      }
    });
  });

  describe('the write lock', () => {
    it.concurrent('left by a process that died mid-write: taken over at once', async ({ expect }) => {
      const { dir, file } = freshFolder();
      writeFileSync(`${file}.lock`, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'dead' }));
      const r = await runCli(['config', 'set', 'base-url', 'https://after-crash.example'], { env: { CRAWL_CONFIG_DIR: dir } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('waiting');
      expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default['base-url']).toBe('https://after-crash.example');
      expect(readdirSync(dir)).toEqual(['config.json']);
    });

    it.concurrent('left empty by a process killed as it created it: taken over once it is clearly abandoned', async ({ expect }) => {
      const { dir, file } = freshFolder();
      writeFileSync(`${file}.lock`, '');
      const past = new Date(Date.now() - 5000);
      utimesSync(`${file}.lock`, past, past);
      const r = await runCli(['config', 'set', 'base-url', 'https://after-kill.example'], { env: { CRAWL_CONFIG_DIR: dir } });
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(dir)).toEqual(['config.json']);
    });

    it.concurrent('held by a live process: the writer says it waits, then writes once it is free', async ({ expect }) => {
      const { dir, file } = freshFolder();
      const release = holdConfigLock(file);
      try {
        let out: { stderr: () => string } | undefined;
        // Freed as the writer starts its next poll after saying it waits.
        const clock = clockWatching(() => {
          if (out?.stderr().includes('waiting for another crawl process')) release();
        });
        const r = await runCli(['config', 'set', 'base-url', 'https://patient.example'], {
          env: { CRAWL_CONFIG_DIR: dir },
          clock,
          onSpawn: (_child, output) => (out = output),
        });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toMatch(new RegExp(`^crawl: waiting for another crawl process \\(pid ${process.pid}\\) to finish writing ${file}\\n`));
        expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default['base-url']).toBe('https://patient.example');
      } finally {
        release();
      }
    });

    it.concurrent('never released by a live process: exit 1 in bounded time, naming the lock; nothing changed', async ({ expect }) => {
      const { dir, file } = freshFolder({ profiles: { default: { 'base-url': 'https://kept.example/' } } });
      const before = readFileSync(file);
      const release = holdConfigLock(file);
      try {
        const r = await runCli(['config', 'set', 'base-url', 'https://never.example'], { env: { CRAWL_CONFIG_DIR: dir } });
        expect(r.code).toBe(1);
        // Bounded: it polled every 20 ms and gave up once 5 s (of the clock) had passed.
        expect(new Set(r.clock?.sleeps)).toEqual(new Set([20]));
        expect(r.clock?.elapsed()).toBeGreaterThanOrEqual(5000);
        expect(r.clock?.elapsed()).toBeLessThanOrEqual(5020);
        expect(r.stderr.split('\n').slice(-3)).toEqual([
          `crawl: the config file ${file} is being written by another crawl process (pid ${process.pid}); nothing was changed`,
          `hint: try again; if no crawl is running, remove ${file}.lock`,
          '',
        ]);
        expect(readFileSync(file).equals(before)).toBe(true);
      } finally {
        release();
      }
    });
  });
});

describe('a lock that is not a file crawl made', () => {
  // The config lock replaced by something that is not a lock file crawl made.
  let fx: SandboxFixture;
  let tmp: { dir: string; cleanup: () => void };
  let n = 0;
  /** The FIFOs the tests below use, all made before they run. */
  let mkfifo: (path: string) => void;
  beforeAll(async () => {
    fx = await sandboxFixture({ seed: false });
    tmp = tempDir('crawl-local-trust-');
    mkfifo = fifoSpool(tmp.dir, 10);
  });
  afterAll(async () => {
    tmp.cleanup();
    await fx.close();
  });

  /** A private folder of its own (0700) holding `doc` as config.json (0600). */

  const folderWith = (doc: unknown, mode = 0o700): { dir: string; file: string } => privateFolderWith(tmp.dir, doc, mode);

  describe('the config lock is not a file crawl made', () => {
    const setUp = (): { dir: string; file: string; lock: string } => {
      const { dir, file } = folderWith({ profiles: { default: { 'base-url': 'https://kept.example' } } });
      return { dir, file, lock: `${file}.lock` };
    };
    const FORMS: Array<[string, (lock: string) => void, string, string]> = [
      ['a FIFO', (lock) => mkfifo(lock), 'a FIFO', 'rm'],
      ['a symlink to /dev/zero', (lock) => symlinkSync('/dev/zero', lock), 'a symbolic link', 'rm'],
      ['a symlink to a folder', (lock) => symlinkSync(tmp.dir, lock), 'a symbolic link', 'rm'],
      ['a dangling symlink', (lock) => symlinkSync(join(tmp.dir, 'nothing-here'), lock), 'a symbolic link', 'rm'],
      ['a symlink to a FIFO', (lock) => {
        const fifo = join(tmp.dir, `fifo-${++n}`);
        mkfifo(fifo);
        symlinkSync(fifo, lock);
      }, 'a symbolic link', 'rm'],
      ['a folder', (lock) => mkdirSync(lock), 'a folder', 'rm -r'],
    ];

    it.concurrent.for(FORMS)('%s: config set and config unset exit 1 at once naming it; nothing changed, nothing removed', async ([, make, kind, rm], { expect }) => {
      const { dir, file, lock } = setUp();
      make(lock);
      const before = readFileSync(file);
      const env = envOf({ CRAWL_CONFIG_DIR: dir });
      // Generous bounds: what is checked is that they end (no hang), not how fast.
      const results = await Promise.all([
        runCli(['config', 'set', 'base-url', 'https://new.example'], { env, timeoutMs: 15_000 }),
        runCli(['config', 'unset', 'base-url'], { env, timeoutMs: 15_000 }),
      ]);
      for (const r of results) {
        expect(r.timedOut).toBe(false);
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe(`crawl: the config lock ${lock} is ${kind}, not a lock file crawl made; nothing was changed\nhint: remove it (\`${rm} ${lock}\`) and try again\n`);
      }
      expect(readFileSync(file).equals(before)).toBe(true);
      expect(lstatSync(lock, { throwIfNoEntry: false })).toBeDefined();
    });

    it.concurrent.for([
      ['a FIFO', (lock: string) => mkfifo(lock), 'a FIFO', 'cmd /c del'],
      ['a folder', (lock: string) => mkdirSync(lock), 'a folder', 'cmd /c rmdir /s /q'],
    ] as Array<[string, (lock: string) => void, string, string]>)('%s, on Windows in cmd or PowerShell (the quoting given to the store): the hint removes it in words both take', async ([, make, kind, remove], { expect }) => {
      const { file, lock } = setUp();
      make(lock);
      const before = readFileSync(file);
      // A Windows path would be no path here: the store is given this file, and the Windows shells' words.
      const store = new ConfigStore(file, { quoting: 'windows' });
      const error = await store.update('default', (profile) => void (profile['base-url'] = 'https://new.example')).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(CrawlError);
      expect((error as CrawlError).message).toBe(`the config lock ${lock} is ${kind}, not a lock file crawl made; nothing was changed`);
      expect((error as CrawlError).hint).toBe(`remove it (\`${remove} ${lock}\`) and try again`);
      expect(readFileSync(file).equals(before)).toBe(true);
      expect(lstatSync(lock, { throwIfNoEntry: false })).toBeDefined();
    });

    it.concurrent.for([
      // Git Bash or MSYS2: `rm`, single-quoted (MSYS would turn cmd's `/c` into a path).
      [{ MSYSTEM: 'MINGW64' }, (lock: string) => `\`rm ${shellQuote(lock)}\``],
      // The shell cannot be told: a form for each, named, each quoted for its own shells.
      [{ TERM: 'xterm' }, (lock: string) => `\`rm ${shellQuote(lock)}\` in bash, \`cmd /c del ${lock}\` in cmd or PowerShell`],
    ] as Array<[Record<string, string>, (lock: string) => string]>)('on Windows with %j, a FIFO at the lock: the hint removes it in the words of the shell in use', async ([env, remove], { expect }) => {
      const { file, lock } = setUp();
      mkfifo(lock);
      const store = new ConfigStore(file, { quoting: quotingFor({ os: 'win32' }, env) });
      const error = await store.update('default', (profile) => void (profile['base-url'] = 'https://new.example')).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(CrawlError);
      expect((error as CrawlError).hint).toBe(`remove it (${remove(lock)}) and try again`);
    });

    it.concurrent.for([
      ['ad$min [1]', 'cmd /c del <path>'],
      ['Ada Lovelace [1]', 'cmd /c del "{lock}"'],
      // Letters of any script are literal in double quotes; a typographic quote is a quote to PowerShell.
      ['José Núñez [1]', 'cmd /c del "{lock}"'],
      ['O\u2019Brien', 'cmd /c del <path>'],
    ] as Array<[string, string]>)('on Windows, a lock in a folder named %j: the path is spliced only where cmd and PowerShell read it alike (%s)', async ([name, remove], { expect }) => {
      // `$min` would expand in PowerShell's double quotes, and PowerShell's own `del` reads `[1]` as a wildcard.
      const parent = join(tmp.dir, `${name} ${++n}`);
      mkdirSync(parent, { mode: 0o700 });
      const { file } = privateFolderWith(parent, { profiles: { default: { 'base-url': 'https://kept.example' } } });
      const lock = `${file}.lock`;
      mkfifo(lock);
      const store = new ConfigStore(file, { quoting: 'windows' });
      const error = await store.update('default', (profile) => void (profile['base-url'] = 'https://new.example')).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(CrawlError);
      expect((error as CrawlError).message).toBe(`the config lock ${lock} is a FIFO, not a lock file crawl made; nothing was changed`);
      expect((error as CrawlError).hint).toBe(`remove it (\`${remove.replace('{lock}', lock)}\`) and try again`);
    });

    it.concurrent('a FIFO lock while a key is stored: keys create --save still hands the key over, exit 1', async ({ expect }) => {
      const { dir, file, lock } = setUp();
      mkfifo(lock);
      const r = await runCli(['keys', 'create', 'fifo-lock', '--save'], {
        env: envOf({ CRAWL_CONFIG_DIR: dir, CRAWL_BASE_URL: fx.sandbox.url, CRAWL_API_KEY: fx.sandbox.key }),
        timeoutMs: 15_000,
      });
      expect(r.timedOut).toBe(false);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/^crk_[A-Za-z0-9]{20,}\n$/);
      expect(r.stderr).toContain(`the config lock ${lock} is a FIFO`);
      expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default).toEqual({ 'base-url': 'https://kept.example' });
    });

    it.concurrent('a lock file full of junk (larger than any lock) is judged by its age alone and taken over once stale', async ({ expect }) => {
      const { dir, file, lock } = setUp();
      writeFileSync(lock, 'x'.repeat(1 << 20));
      const past = new Date(Date.now() - 60_000);
      utimesSync(lock, past, past);
      const r = await runCli(['config', 'set', 'base-url', 'https://new.example'], { env: envOf({ CRAWL_CONFIG_DIR: dir }) });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default['base-url']).toBe('https://new.example');
      expect(readdirSync(dir)).toEqual(['config.json']);
    });
  });
});
