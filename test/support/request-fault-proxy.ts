// A proxy in front of kube-apiserver that ends TLS on its side and so reads each HTTP/1.1
// request line: a test can fault requests of one kind rather than whole connections. It cuts the
// answer to a request it forwarded (the API server did the write; the client sees its connection
// reset) and holds back what the server sends on chosen connections (a watch that lags).
// TcpProxy (tcp-proxy.ts) faults connections only: it cannot tell one request from another.
import { connect, createServer, type Server, type TLSSocket } from "node:tls";
import type { ControlPlane } from "../controlplane/control-plane.ts";
import { listenOnEphemeralPort } from "../../pkg/testing/free-ports.ts";

/** Requests of one kind: the method and a pattern for the path (with its query). */
export interface RequestMatch {
  method: string;
  path: RegExp;
}

/** A certificate and its key, PEM. */
export interface KeyPair {
  certPem: string;
  keyPem: string;
}

export interface RequestFaultProxyOptions {
  /** The API server's URL, https://host:port. */
  target: string;
  /** CA that signed the API server's certificate. */
  caPem: string;
  /** What the proxy shows clients: a certificate for 127.0.0.1 they trust. */
  serving: KeyPair;
  /** What the proxy shows the API server: every request is made as this client. */
  client: KeyPair;
}

interface ProxiedConnection {
  client: TLSSocket;
  upstream: TLSSocket;
  /** The last request line the client sent, e.g. "GET /api/v1/pods?watch=true". */
  request: string;
  /** Chunks from the server kept from the client while a hold covers this connection. */
  held: Buffer[] | undefined;
  cutWhenAnswered: boolean;
}

interface PendingCut {
  match: RequestMatch;
  /** Runs as the request is seen, before it is forwarded. */
  beforeForwarding: () => void;
  done: () => void;
}

const requestLine = /^([A-Z]+) (\S+) HTTP\/1\.1\r\n/;

export class RequestFaultProxy {
  readonly #connections = new Set<ProxiedConnection>();
  readonly #cuts: PendingCut[] = [];
  readonly #holds = new Set<RequestMatch>();
  readonly #requests: string[] = [];

  private constructor(
    private readonly server: Server,
    private readonly options: RequestFaultProxyOptions,
    /** https://127.0.0.1:<port>, for a kubeconfig. */
    readonly url: string,
  ) {
    server.on("secureConnection", (client: TLSSocket) => this.#accept(client));
  }

  static async start(options: RequestFaultProxyOptions): Promise<RequestFaultProxy> {
    const server = createServer({ cert: options.serving.certPem, key: options.serving.keyPem });
    const port = await listenOnEphemeralPort(server);
    return new RequestFaultProxy(server, options, `https://127.0.0.1:${port}`);
  }

  /** A proxy in front of the control plane's API server, presenting its serving certificate and acting as its admin. */
  static inFrontOf(controlPlane: ControlPlane): Promise<RequestFaultProxy> {
    const { pki } = controlPlane;
    return RequestFaultProxy.start({ target: controlPlane.server, caPem: pki.ca.certPem, serving: pki.apiserverServing, client: pki.admin });
  }

  /**
   * The next request matching `match` is forwarded, and its connection closed as soon as the
   * answer starts, so the client never reads it. `beforeForwarding` runs just before the request
   * goes on (e.g. to hold a watch). Resolves once the answer was cut.
   */
  cutNextAnswer(match: RequestMatch, beforeForwarding: () => void = () => undefined): Promise<void> {
    return new Promise((resolve) => this.#cuts.push({ match, beforeForwarding, done: resolve }));
  }

  /**
   * Keeps what the server sends on connections whose last request matches `match` (those open
   * now and those opened meanwhile) from their clients, until the returned function is called.
   */
  holdAnswers(match: RequestMatch): () => void {
    this.#holds.add(match);
    for (const connection of this.#connections) if (matches(match, connection.request)) connection.held ??= [];
    return () => {
      this.#holds.delete(match);
      for (const connection of this.#connections) {
        if (connection.held === undefined || [...this.#holds].some((hold) => matches(hold, connection.request))) continue;
        for (const chunk of connection.held) connection.client.write(chunk);
        connection.held = undefined;
      }
    };
  }

  /** How many requests matching `match` came through so far. */
  requestCount(match: RequestMatch): number {
    return this.#requests.filter((request) => matches(match, request)).length;
  }

  async stop(): Promise<void> {
    for (const connection of this.#connections) this.#close(connection);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  #accept(client: TLSSocket): void {
    const target = new URL(this.options.target);
    const upstream = connect({
      host: target.hostname,
      port: Number(target.port),
      ca: this.options.caPem,
      cert: this.options.client.certPem,
      key: this.options.client.keyPem,
    });
    const connection: ProxiedConnection = { client, upstream, request: "", held: undefined, cutWhenAnswered: false };
    this.#connections.add(connection);
    for (const socket of [client, upstream]) {
      socket.on("error", () => this.#close(connection));
      socket.on("close", () => this.#close(connection));
    }
    client.on("data", (chunk: Buffer) => this.#fromClient(connection, chunk));
    upstream.on("data", (chunk: Buffer) => this.#fromServer(connection, chunk));
  }

  #fromClient(connection: ProxiedConnection, chunk: Buffer): void {
    const line = requestLine.exec(chunk.subarray(0, 4096).toString("latin1"));
    if (line) {
      connection.request = `${line[1]} ${line[2]}`;
      this.#requests.push(connection.request);
      connection.held = [...this.#holds].some((hold) => matches(hold, connection.request)) ? (connection.held ?? []) : undefined;
      const cutAt = this.#cuts.findIndex((cut) => matches(cut.match, connection.request));
      if (cutAt >= 0) {
        const [cut] = this.#cuts.splice(cutAt, 1);
        cut?.beforeForwarding();
        connection.cutWhenAnswered = true;
        connection.upstream.once("close", () => cut?.done());
      }
    }
    connection.upstream.write(chunk);
  }

  #fromServer(connection: ProxiedConnection, chunk: Buffer): void {
    if (connection.cutWhenAnswered) this.#close(connection);
    else if (connection.held) connection.held.push(chunk);
    else connection.client.write(chunk);
  }

  #close(connection: ProxiedConnection): void {
    if (!this.#connections.delete(connection)) return;
    connection.client.destroy();
    connection.upstream.destroy();
  }
}

function matches(match: RequestMatch, request: string): boolean {
  const space = request.indexOf(" ");
  return request.slice(0, space) === match.method && match.path.test(request.slice(space + 1));
}
