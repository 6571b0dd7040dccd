// Picks unused loopback ports for the servers a test starts.
//
// A port the kernel hands out for listen(0) lies in its ephemeral range, the same range it takes
// the local port of every outgoing connection from. Between picking a port and the server binding
// it, any client on the machine may connect out from that very port, and the server then fails
// with EADDRINUSE (seen in CI with tests running side by side). Ports below that range are never
// given to outgoing connections, so picking there leaves only other pickers to collide with.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";

/** Lowest port picked: clear of the well-known and registered services most machines run. */
const lowestPort = 20_000;
/** Fewer candidates than this below the ephemeral range: let the kernel choose instead. */
const fewestCandidates = 1_000;
/** Where the kernel's range cannot be read (not Linux): IANA's dynamic ports, as macOS uses. */
const defaultEphemeralRange = { first: 49_152, last: 65_535 } as const;

/** The kernel's range for outgoing connections' local ports (Linux), or the IANA default elsewhere. */
export function ephemeralPortRange(procFile = "/proc/sys/net/ipv4/ip_local_port_range"): { first: number; last: number } {
  try {
    const [first, last] = readFileSync(procFile, "utf8").trim().split(/\s+/).map(Number);
    if (Number.isInteger(first) && Number.isInteger(last)) return { first: first!, last: last! };
  } catch {
    // Not Linux: fall through.
  }
  return defaultEphemeralRange;
}

/** One free port on 127.0.0.1 per name, all distinct (they are held open together while picked). */
export async function freeLoopbackPorts<Name extends string>(names: readonly Name[]): Promise<Record<Name, number>> {
  const servers: Server[] = [];
  const below = ephemeralPortRange().first;
  try {
    const ports: Partial<Record<Name, number>> = {};
    for (const name of names) {
      const server = createServer();
      servers.push(server);
      ports[name] = below - lowestPort >= fewestCandidates ? await listenOnPortBelow(server, below) : await listenOnEphemeralPort(server);
    }
    return ports as Record<Name, number>;
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

/** Starts `server` on a random free 127.0.0.1 port in [lowestPort, below), trying until one binds. */
async function listenOnPortBelow(server: Server, below: number): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = lowestPort + Math.floor(Math.random() * (below - lowestPort));
    try {
      return await listenOn(server, port);
    } catch (error) {
      if (attempt >= 100) throw error;
    }
  }
}

/** Starts `server` listening on a free 127.0.0.1 port the kernel picks, and resolves with the port. */
export function listenOnEphemeralPort(server: Server): Promise<number> {
  return listenOn(server, 0);
}

function listenOn(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error): void => reject(error);
    server.once("error", failed);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", failed);
      const address = server.address();
      if (address === null || typeof address === "string") reject(new Error("listening socket has no TCP address"));
      else resolve(address.port);
    });
  });
}
