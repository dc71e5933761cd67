import { connect, type AddressInfo, type Server, type Socket } from 'node:net';

export interface OnLoopback {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Ends every open connection (keep-alive, or held on purpose), then the server. */
  close(): Promise<void>;
}

/** Listens on a free port of 127.0.0.1: what every server made for a test does. */
export async function listenOnLoopback(server: Server): Promise<OnLoopback> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Makes `proxy` a forward proxy for CONNECT: each tunnel is relayed to where it asks, and counted
 * through `onTunnel`. What the proxy does with plain requests is the caller's.
 */
export function relayTunnels(proxy: Server, onTunnel: () => void = () => undefined): void {
  proxy.on('connect', (req: { url?: string }, socket: Socket, head: Buffer) => {
    onTunnel();
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
}
