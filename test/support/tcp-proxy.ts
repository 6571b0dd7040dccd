// A loopback TCP proxy that tests use to break, partition or slow down connections to a
// server (e.g. cut an informer's watch, cut a leader off from the apiserver, or make a big
// LIST take longer than the client's timeout).
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { listenOnEphemeralPort } from "../../pkg/testing/free-ports.ts";

/** How pause() treats traffic: hang it like a network partition, or refuse it like a stopped server. */
export type PauseMode = "blackhole" | "refuse";

interface ProxiedConnection {
  client: Socket;
  /** Undefined while a connection accepted during a blackhole waits for resume(). */
  upstream: Socket | undefined;
}

export class TcpProxy {
  readonly #connections = new Set<ProxiedConnection>();
  #pauseMode: PauseMode | undefined;
  /** Bytes per second allowed from the server to clients; undefined = unlimited. */
  #downstreamRate: number | undefined;
  #bytesToClients = 0;
  #accepted = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {
    server.on("connection", (client) => this.#accept(client));
    // Only re-listening in resume() can fail (someone took the port meanwhile).
    server.on("error", (error) => console.error(`TcpProxy on port ${port}: ${error.message}`));
  }

  /** Listens on a free 127.0.0.1 port and forwards every connection to target. */
  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const server = createServer({ pauseOnConnect: true });
    const port = await listenOnEphemeralPort(server);
    return new TcpProxy(server, port, targetHost, targetPort);
  }

  /** Bytes forwarded from the server to clients so far. */
  get bytesToClients(): number {
    return this.#bytesToClients;
  }

  /** Limits what flows from the server to clients to `bytesPerSecond` (undefined: no limit), like a slow link. */
  throttle(bytesPerSecond: number | undefined): void {
    this.#downstreamRate = bytesPerSecond;
  }

  /** Connections accepted so far, closed ones included: how often a client had to connect. */
  get acceptedConnections(): number {
    return this.#accepted;
  }

  /** Connections currently open through the proxy (including ones held by a blackhole). */
  get activeConnections(): number {
    return this.#connections.size;
  }

  /** Closes every live connection at once, as if the server or the network dropped them. */
  cutAll(): void {
    for (const connection of this.#connections) this.#close(connection);
  }

  /**
   * "blackhole" (default): no byte moves in either direction and new connections hang
   * unanswered, until resume() — a network partition; clients only notice through timeouts.
   * "refuse": live connections are closed and the port stops listening, so new ones get
   * ECONNREFUSED (fast failure) until resume() listens again on the same port.
   */
  pause(mode: PauseMode = "blackhole"): void {
    this.#pauseMode = mode;
    if (mode === "refuse") {
      this.server.close();
      this.cutAll();
      return;
    }
    this.#ensureListening();
    for (const { client, upstream } of this.#connections) {
      client.pause();
      upstream?.pause();
    }
  }

  /** Lets traffic flow again; connections held by a blackhole are connected now. */
  resume(): void {
    this.#pauseMode = undefined;
    this.#ensureListening();
    for (const connection of this.#connections) {
      if (connection.upstream) {
        connection.client.resume();
        connection.upstream.resume();
      } else {
        this.#connectUpstream(connection);
      }
    }
  }

  async stop(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // Synchronous in Bun and Node: the port accepts again as soon as this returns.
  #ensureListening(): void {
    if (!this.server.listening) this.server.listen(this.port, "127.0.0.1");
  }

  #accept(client: Socket): void {
    const connection: ProxiedConnection = { client, upstream: undefined };
    this.#accepted++;
    this.#connections.add(connection);
    client.on("error", () => this.#close(connection));
    client.on("close", () => this.#close(connection));
    // Accepted paused (pauseOnConnect), so nothing is read before upstream exists.
    if (this.#pauseMode === undefined) this.#connectUpstream(connection);
  }

  #connectUpstream(connection: ProxiedConnection): void {
    const { client } = connection;
    const upstream = createConnection({ host: this.targetHost, port: this.targetPort });
    connection.upstream = upstream;
    upstream.on("error", () => this.#close(connection));
    upstream.on("close", () => this.#close(connection));
    this.#forward(client, upstream, false);
    this.#forward(upstream, client, true);
    client.resume();
  }

  // Hand-written instead of pipe(): pipe() resumes the source on 'drain', which would undo a
  // blackhole. The source is paused while the destination is full and, downstream under a
  // throttle, for as long as the chunk just sent takes at the allowed rate.
  #forward(from: Socket, to: Socket, downstream: boolean): void {
    let draining = false;
    let pacing = false;
    const resumeWhenFree = () => {
      if (!draining && !pacing && this.#pauseMode === undefined) from.resume();
    };
    from.on("data", (chunk: Buffer) => {
      if (downstream) this.#bytesToClients += chunk.length;
      draining = !to.write(chunk);
      const rate = downstream ? this.#downstreamRate : undefined;
      if (rate !== undefined) {
        pacing = true;
        setTimeout(() => {
          pacing = false;
          resumeWhenFree();
        }, (chunk.length / rate) * 1000);
      }
      if (draining || pacing) from.pause();
    });
    to.on("drain", () => {
      draining = false;
      resumeWhenFree();
    });
    from.on("end", () => to.end());
  }

  #close(connection: ProxiedConnection): void {
    if (!this.#connections.delete(connection)) return;
    connection.client.destroy();
    connection.upstream?.destroy();
  }
}
