// Each system's branch of src/platform/platform.ts, decided here on Linux with the platform given.
import { describe, expect, it } from 'vitest';
import { commandFolder, commandShell, crawlLauncher, endOfInputKeys, removeCommand, envValue, envWithout, pathsOf, pipeBufferSize, terminatingSignals, windowsProgram, type Platform } from '../../src/platform/platform.js';

const SYSTEMS: NodeJS.Platform[] = ['linux', 'darwin', 'win32', 'freebsd', 'android'];
const on = (os: NodeJS.Platform): Platform => ({ os, home: '' });

describe('PIPE_BUF', () => {
  it.each([
    ['linux', 4096],
    ['android', 4096],
    ['darwin', 512],
    ['freebsd', 512],
    ['win32', 512],
    ['aix', 512],
  ] as const)('%s: %i', (os, bytes) => {
    expect(pipeBufferSize(on(os))).toBe(bytes);
  });
});

describe('the environment a child gets', () => {
  const env = { crawl_api_key: 'lower', CRAWL_API_KEY: 'upper', Crawl_Api_Key: 'mixed', PATH: '/bin', OTHER: undefined };

  it('Windows: the variable is left out in every case of its name', () => {
    expect(envWithout(env, ['CRAWL_API_KEY'], on('win32'))).toEqual({ PATH: '/bin' });
  });

  it.each(['linux', 'darwin'] as const)('%s: only the exact name (other cases are other variables there)', (os) => {
    expect(envWithout(env, ['CRAWL_API_KEY'], on(os))).toEqual({ crawl_api_key: 'lower', Crawl_Api_Key: 'mixed', PATH: '/bin' });
  });

  it('a value is found by any case of its name on Windows only', () => {
    expect(envValue({ ComSpec: 'C:\\Windows\\system32\\cmd.exe' }, 'COMSPEC', on('win32'))).toBe('C:\\Windows\\system32\\cmd.exe');
    expect(envValue({ ComSpec: 'x' }, 'COMSPEC', on('linux'))).toBeUndefined();
  });
});

describe('the shell that runs a command line', () => {
  it('Windows: %ComSpec% (cmd.exe), whatever shell crawl runs in', () => {
    expect(commandShell(on('win32'), { ComSpec: 'C:\\Windows\\system32\\cmd.exe' })).toBe('C:\\Windows\\system32\\cmd.exe');
    expect(commandShell(on('win32'), {})).toBe('cmd.exe');
  });
  it.each(['linux', 'darwin', 'freebsd'] as const)('%s: /bin/sh', (os) => {
    expect(commandShell(on(os), { SHELL: '/bin/zsh' })).toBe('/bin/sh');
  });
});

describe('a program of Windows itself (icacls, taskkill)', () => {
  it('by its full path in %SystemRoot%\\System32, never a bare name the current folder could answer', () => {
    expect(windowsProgram('icacls', { SystemRoot: 'D:\\WINNT' })).toBe('D:\\WINNT\\System32\\icacls.exe');
    expect(windowsProgram('taskkill', { systemroot: 'C:\\Windows\\' })).toBe('C:\\Windows\\System32\\taskkill.exe');
  });
  it('C:\\Windows when SystemRoot is not set (or empty)', () => {
    expect(windowsProgram('icacls', {})).toBe('C:\\Windows\\System32\\icacls.exe');
    expect(windowsProgram('icacls', { SystemRoot: '' })).toBe('C:\\Windows\\System32\\icacls.exe');
  });
});

describe('the folder a command line starts in (commandFolder)', () => {
  const ada = { os: 'win32' as const, home: 'C:\\Users\\ada' };
  const ROOT = { SystemRoot: 'D:\\Windows' };

  it.each(['\\\\wsl$\\Ubuntu\\home\\ada', '\\\\wsl.localhost\\Ubuntu\\srv', '\\\\fileserver\\team\\crawl', '//fileserver/team', '\\\\?\\UNC\\fileserver\\team'])(
    'Windows, from the UNC folder %s (cmd.exe would warn and run in %%SystemRoot%%): the profile folder',
    (cwd) => {
      expect(commandFolder(ada, cwd, ROOT)).toBe('C:\\Users\\ada');
    },
  );

  it('Windows, a UNC folder and a profile folder that is no local one (or none): %SystemRoot%, in any case of its name; else C:\\Windows', () => {
    const uncHome = { os: 'win32' as const, home: '\\\\fileserver\\homes\\ada' };
    expect(commandFolder(uncHome, '\\\\wsl$\\Ubuntu', ROOT)).toBe('D:\\Windows');
    expect(commandFolder(on('win32'), '\\\\wsl$\\Ubuntu', { SYSTEMROOT: 'E:\\Win' })).toBe('E:\\Win');
    expect(commandFolder(on('win32'), '\\\\wsl$\\Ubuntu', {})).toBe('C:\\Windows');
    expect(commandFolder(on('win32'), '\\\\wsl$\\Ubuntu', { SystemRoot: '\\\\server\\windows' })).toBe('C:\\Windows');
  });

  it('Windows from a folder with a drive letter (a mapped share included), and every other system from any folder: its own current folder', () => {
    expect(commandFolder(ada, 'C:\\work', ROOT)).toBeUndefined();
    expect(commandFolder(ada, 'Z:\\team', ROOT)).toBeUndefined();
    for (const os of ['linux', 'darwin', 'freebsd'] as const) expect(commandFolder({ os, home: '/home/ada' }, '//server/share', ROOT)).toBeUndefined();
  });
});

describe('typing, signals, paths', () => {
  it.each(SYSTEMS)('%s', (os) => {
    const windows = os === 'win32';
    expect(endOfInputKeys(on(os))).toBe(windows ? 'Ctrl-Z, then Enter' : 'Ctrl-D');
    // SIGTERM never arrives on Windows, but Ctrl-Break and closing the console do.
    expect(terminatingSignals(on(os))).toEqual(windows ? ['SIGTERM', 'SIGHUP', 'SIGBREAK'] : ['SIGTERM', 'SIGHUP']);
    expect(pathsOf(on(os)).sep).toBe(windows ? '\\' : '/');
  });
});

describe('crawl as this run was started (crawlLauncher)', () => {
  const started = (os: NodeJS.Platform, script: string | undefined): Platform => ({ os, home: '', script });

  it.each([
    ['linux', undefined, false, ['crawl']],
    ['linux', '/usr/local/bin/crawl', true, ['crawl']],
    // A project's npm script (`"sandbox": "crawl sandbox"`) and npx both start node_modules/.bin/crawl.
    ['linux', '/home/ada/proj/node_modules/.bin/crawl', false, ['npx', '@webcrawl/cli@1.2.3']],
    ['linux', '/home/ada/.npm/_npx/1f2e/node_modules/.bin/crawl', false, ['npx', '@webcrawl/cli@1.2.3']],
    ['linux', '/usr/local/lib/node_modules/@webcrawl/cli/bin/crawl.js', false, ['npx', '@webcrawl/cli@1.2.3']],
    ['linux', '/home/ada/src/crawl/bin/crawl.js', false, ['node', '/home/ada/src/crawl/bin/crawl.js']],
    ['linux', '/home/ada/src/crawl/bin/crawl.js', true, ['crawl']],
    ['linux', '/home/ada/src/crawl/bin/crawl', false, ['node', '/home/ada/src/crawl/bin/crawl']],
    ['darwin', '/Users/ada/crawl clone/bin/crawl.js', false, ['node', '/Users/ada/crawl clone/bin/crawl.js']],
    ['win32', 'C:\\Users\\ada\\crawl\\bin\\crawl.js', false, ['node', 'C:\\Users\\ada\\crawl\\bin\\crawl.js']],
    // npm's .cmd and .ps1 shims start node with the package's script.
    ['win32', 'C:\\Users\\ada\\AppData\\Roaming\\npm\\node_modules\\@webcrawl\\cli\\bin\\crawl.js', true, ['crawl']],
    ['win32', 'C:\\Users\\ada\\AppData\\Roaming\\npm\\node_modules\\@webcrawl\\cli\\bin\\crawl.js', false, ['npx', '@webcrawl/cli@1.2.3']],
    ['win32', 'C:\\proj\\Node_Modules\\@webcrawl\\cli\\bin\\crawl.js', false, ['npx', '@webcrawl/cli@1.2.3']],
  ] as Array<[NodeJS.Platform, string | undefined, boolean, string[]]>)('%s, started as %s, this crawl on PATH: %s: %j', (os, script, onPath, words) => {
    expect(crawlLauncher(started(os, script), onPath, '1.2.3')).toEqual(words);
  });

  it('never `npx crawl`, which runs whatever package has that name', () => {
    for (const os of SYSTEMS) {
      for (const script of ['/p/node_modules/.bin/crawl', 'C:\\p\\node_modules\\.bin\\crawl', '/p/bin/crawl.js', undefined]) {
        for (const onPath of [true, false]) expect(crawlLauncher(started(os, script), onPath, '1.2.3').join(' ')).not.toMatch(/^npx crawl\b/);
      }
    }
  });
});

describe('the command that removes a file or a folder', () => {
  it.each([
    // POSIX shells, Git Bash's on Windows included: MSYS would turn cmd's `/c` into a path.
    ['posix', false, ['rm', '/x/config.json.lock']],
    ['posix', true, ['rm', '-r', '/x/config.json.lock']],
    // cmd's del: PowerShell's own `del` (Remove-Item) reads `[` and `]` in a path as wildcards.
    ['windows', false, ['cmd', '/c', 'del', '/x/config.json.lock']],
    ['windows', true, ['cmd', '/c', 'rmdir', '/s', '/q', '/x/config.json.lock']],
  ] as Array<['posix' | 'windows', boolean, string[]]>)('%s shells, a folder: %s', (shell, folder, words) => {
    expect(removeCommand(shell, '/x/config.json.lock', folder)).toEqual(words);
  });
});
