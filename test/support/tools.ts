// The programs some tests run for real beyond Node, npm and a POSIX base (sh, coreutils): the
// shells whose completion crawl prints, a pty (`script`), tmux, a D-Bus bus with GNOME Keyring on
// it, and the rest of TOOLS. A test names what it needs, `describe(name, needs('zsh', 'script'),
// ...)`: each tool is looked up on PATH once per worker, and when one is missing the test is
// skipped, its hooks never run, and the run's last lines say which tools and their Debian packages
// (test/support/tools-reporter.ts). With CRAWL_TEST_TOOLS=required (.ci/run) those tests fail
// instead, naming the same (test/support/tools-setup.ts), so CI cannot pass by skipping.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { TestOptions } from 'vitest';

/** Each tool a test may need, and the Debian package that installs it. */
export const TOOLS = {
  bash: 'bash',
  zsh: 'zsh',
  fish: 'fish',
  tmux: 'tmux',
  script: 'bsdutils',
  setpriv: 'util-linux',
  setsid: 'util-linux',
  jq: 'jq',
  pass: 'pass',
  gpg: 'gpg',
  openssl: 'openssl',
  'dbus-daemon': 'dbus-daemon',
  'dbus-run-session': 'dbus-daemon',
  'dbus-broker': 'dbus-broker',
  'dbus-broker-launch': 'dbus-broker',
  python3: 'python3',
  'systemd-ask-password': 'systemd',
  'dbus-monitor': 'dbus-bin',
  'gnome-keyring-daemon': 'gnome-keyring',
  'secret-tool': 'libsecret-tools',
  'dpkg-query': 'dpkg',
} as const satisfies Record<string, string>;

export type Tool = keyof typeof TOOLS;

declare module 'vitest' {
  interface TaskMeta {
    /** The tools this test needs that were not on PATH (needs()). */
    missingTools?: Tool[];
  }
}

/** The environment variable, and its one other value: missing tools fail the tests instead. */
export const TOOLS_MODE_VARIABLE = 'CRAWL_TEST_TOOLS';

/** Whether a missing tool fails the tests that need it (CRAWL_TEST_TOOLS=required) or skips them (unset). */
export function toolsRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const mode = env[TOOLS_MODE_VARIABLE];
  if (mode === undefined || mode === '') return false;
  if (mode === 'required') return true;
  // A misspelt `required` would otherwise let CI pass by skipping.
  throw new Error(`${TOOLS_MODE_VARIABLE}=${mode}: the one value it takes is \`required\` (unset: a test whose tools are missing is skipped)`);
}

const found = new Map<string, string | undefined>();

/** Where `tool` is on `path` (as a shell would find it), looked up once; undefined when it is not there. */
export function toolPath(tool: Tool, path: string = process.env.PATH ?? ''): string | undefined {
  const key = `${tool}\0${path}`;
  if (!found.has(key)) found.set(key, search(tool, path));
  return found.get(key);
}

function search(name: string, path: string): string | undefined {
  // An empty entry is the current folder to a shell: never where a program of the machine lives.
  for (const dir of path.split(delimiter).filter((d) => d !== '')) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** The tools of `tools` that are not on `path`. */
export function missingTools(tools: readonly Tool[], path?: string): Tool[] {
  return [...new Set(tools)].filter((tool) => toolPath(tool, path) === undefined);
}

/** `apt-get install` and the packages of `tools`, each named once. */
export function installLine(tools: readonly Tool[]): string {
  return `apt-get install ${[...new Set(tools.map((tool) => TOOLS[tool]))].join(' ')}`;
}

/** `zsh (Debian package zsh), script (Debian package bsdutils)`. */
export function namedWithPackages(tools: readonly Tool[]): string {
  return tools.map((tool) => `${tool} (Debian package ${TOOLS[tool]})`).join(', ');
}

/** What a test that needs a missing tool fails with under CRAWL_TEST_TOOLS=required, or where a tool is run without needs(). */
export class MissingToolError extends Error {
  constructor(readonly tools: readonly Tool[]) {
    super(`not on PATH: ${namedWithPackages(tools)}; install with \`${installLine(tools)}\``);
    this.name = 'MissingToolError';
  }
}

/**
 * The test options for a test (or a describe) that runs `tools`: none when all are on PATH; when
 * one is missing, skipped with the missing ones in its meta, or under CRAWL_TEST_TOOLS=required
 * left to run, for tools-setup.ts to fail it before any of its hooks.
 */
export function needs(...tools: Tool[]): TestOptions {
  return toolOptions(tools, process.env);
}

/** needs(), for a given environment (its PATH and CRAWL_TEST_TOOLS). */
export function toolOptions(tools: readonly Tool[], env: NodeJS.ProcessEnv): TestOptions {
  const missing = missingTools(tools, env.PATH ?? '');
  if (missing.length === 0) return {};
  return toolsRequired(env) ? { meta: { missingTools: missing } } : { skip: true, meta: { missingTools: missing } };
}

/**
 * For the code that runs a tool (a support module): a MissingToolError now, rather than a spawn's
 * ENOENT later, when one of `tools` is not on PATH. A test that declared them with needs() never
 * gets here without them; a set-up hook, or a test that forgot to, fails naming the package.
 */
export function requireTools(...tools: Tool[]): void {
  const missing = missingTools(tools);
  if (missing.length > 0) throw new MissingToolError(missing);
}

/**
 * The run's last lines: how many tests were skipped (or, required, failed) for want of a tool, how
 * many for each tool, and the `apt-get install` that would run them. Nothing when none was missing.
 */
export function missingToolsSummary(tests: ReadonlyArray<{ missingTools?: readonly Tool[] }>, required: boolean): string[] {
  const byTool = new Map<Tool, number>();
  let count = 0;
  for (const test of tests) {
    if (!test.missingTools || test.missingTools.length === 0) continue;
    count++;
    for (const tool of test.missingTools) byTool.set(tool, (byTool.get(tool) ?? 0) + 1);
  }
  if (count === 0) return [];
  const tools = [...byTool.keys()].sort();
  const plural = (n: number): string => `${n} test${n === 1 ? '' : 's'}`;
  return [
    required
      ? `Missing tools: ${plural(count)} need programs that are not on PATH, and ${TOOLS_MODE_VARIABLE}=required fails them:`
      : `Missing tools: ${plural(count)} skipped, as they need programs that are not on PATH:`,
    ...tools.map((tool) => `  ${tool} (Debian package ${TOOLS[tool]}): ${plural(byTool.get(tool) ?? 0)}`),
    `To run them: ${installLine(tools)}`,
  ];
}
