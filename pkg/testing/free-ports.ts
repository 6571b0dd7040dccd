// Asks the kernel for unused loopback ports.
import { createServer, type Server } from "node:net";

/** One free port on 127.0.0.1 per name, all distinct (they are held open together while picked). */
export async function freeLoopbackPorts<Name extends string>(names: readonly Name[]): Promise<Record<Name, number>> {
  const servers: Server[] = [];
  try {
    const ports: Partial<Record<Name, number>> = {};
    for (const name of names) {
      const server = createServer();
      servers.push(server);
      ports[name] = await listenOnEphemeralPort(server);
    }
    return ports as Record<Name, number>;
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

/** Starts `server` listening on a free 127.0.0.1 port, and resolves with the port. */
export function listenOnEphemeralPort(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") reject(new Error("listening socket has no TCP address"));
      else resolve(address.port);
    });
  });
}
