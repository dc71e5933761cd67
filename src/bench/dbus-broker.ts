// dbus-broker, the second implementation of the bus (Debian's package `dbus-broker`), on a socket
// of the caller's own. Its launcher, dbus-broker-launch, will not start without journald's socket
// (/run/systemd/journal/socket, absent in a container), so this is a minimal launcher instead: the
// broker is started with a controller socket, and told to listen on the caller's socket with a
// policy that allows everything, as the session bus of a private test is. The controller hands the
// listening socket over as a file descriptor (SCM_RIGHTS), which Node cannot send: that step is a
// few lines of Python; the message it sends is built here. No service activation, as with the
// dbus-daemon of keyring-session.ts: nothing of the developer's session can start on this bus.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Writer, type DBusValue } from '../platform/dbus/wire.js';

const LAUNCHER = `
import array, os, socket, subprocess, sys
path, machine_id = sys.argv[1], sys.argv[2]
add_listener = bytes.fromhex(sys.stdin.readline())
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
listener.listen(128)
# The broker accepts until EAGAIN: a blocking socket would hold it in accept() for ever.
listener.setblocking(False)
ours, theirs = socket.socketpair()
try:
    broker = subprocess.Popen(['dbus-broker', '--controller', str(theirs.fileno()), '--machine-id', machine_id], pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL)
except FileNotFoundError:
    sys.exit('dbus-broker is not installed (Debian package dbus-broker)')
theirs.close()
ours.sendall(b'\\0AUTH EXTERNAL ' + str(os.getuid()).encode().hex().encode() + b'\\r\\nNEGOTIATE_UNIX_FD\\r\\nBEGIN\\r\\n')
answer = b''
while answer.count(b'\\r\\n') < 2:
    chunk = ours.recv(4096)
    if not chunk:
        sys.exit('dbus-broker closed its controller while authenticating')
    answer += chunk
if not answer.startswith(b'OK ') or b'\\r\\nAGREE_UNIX_FD\\r\\n' not in answer:
    sys.exit('dbus-broker refused the controller: ' + repr(answer))
ours.sendmsg([add_listener], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [listener.fileno()]))])
listener.close()
reply = ours.recv(65536)
if len(reply) < 16 or reply[1] != 2:
    sys.exit('dbus-broker refused the listener: ' + repr(reply[:200]))
print('ready', flush=True)
# The bus lives until stdin closes (or this process ends: the broker then loses its controller, and exits).
sys.stdin.read()
broker.terminate()
broker.wait()
`;

/** Every rule the launcher's XML would give: connect, own any name, send and receive anything. */
function allowEverything(): DBusValue[] {
  const xmit: DBusValue[] = [true, 1n, '', '', '', '', 0, 0, 0n, 0xffffffffffffffffn];
  const batch: DBusValue[] = [true, 1n, [[true, 1n, true, '']], [xmit], [xmit]];
  return [[[0xffffffff, batch]], [], [], false, ''];
}
const BATCH = 'bta(btbs)a(btssssuutt)a(btssssuutt)';
const POLICY = `(a(u(${BATCH}))a(buu(${BATCH}))a(ss)bs)`;

/** org.bus1.DBus.Broker.AddListener(o, h, v) on the controller connection, the socket as its one file descriptor. */
function addListenerMessage(): Buffer {
  const body = new Writer();
  body.write('o', '/org/bus1/DBus/Listener/0');
  body.write('h', 0);
  body.write('v', [POLICY, allowEverything()]);
  const fields: DBusValue[] = [
    [1, ['o', '/org/bus1/DBus/Broker']],
    [2, ['s', 'org.bus1.DBus.Broker']],
    [3, ['s', 'AddListener']],
    [8, ['g', 'ohv']],
    [9, ['u', 1]],
  ];
  const head = new Writer();
  for (const byte of ['l'.charCodeAt(0), 1, 0, 1]) head.write('y', byte);
  head.write('u', body.length);
  head.write('u', 1);
  head.write('a(yv)', fields);
  head.align(8);
  return Buffer.concat([head.bytes(), body.bytes()]);
}

export interface RunningBroker {
  /** The launcher, whose end ends the bus. */
  process: ChildProcess;
  /** Ends the broker and its launcher; resolves once the launcher has exited (after reaping the broker). */
  stop(): Promise<void>;
}

/** Debian's python3 when it is there: a version manager's shim on PATH (pyenv) costs seconds a start. */
function python(): string {
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}

/** Starts dbus-broker listening on `socketPath`; resolves once it accepts connections there. */
export function startDbusBroker(socketPath: string): Promise<RunningBroker> {
  const launcher = spawn(python(), ['-c', LAUNCHER, socketPath, randomBytes(16).toString('hex')], { stdio: ['pipe', 'pipe', 'pipe'] });
  launcher.stdin?.write(addListenerMessage().toString('hex') + '\n');
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    launcher.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new Error('python3 is not installed (Debian package python3): it launches dbus-broker for the test') : error),
    );
    launcher.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<void>((resolveExit) => launcher.on('exit', () => resolveExit()));
    launcher.on('exit', (code) => reject(new Error(`the dbus-broker launcher exited with ${code}: ${err.trim().split('\n').slice(-3).join(' / ')}`)));
    launcher.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('ready\n')) return;
      resolve({
        process: launcher,
        stop: () => {
          if (launcher.exitCode === null && launcher.signalCode === null) launcher.stdin?.end();
          return exited;
        },
      });
    });
  });
}
