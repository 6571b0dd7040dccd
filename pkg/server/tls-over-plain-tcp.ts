// A TLS listener for Bun that answers every handshake under load.
//
// Bun's own TLS listeners (node:tls, node:https, Bun.serve, Bun.listen) run on uSockets, which
// lets at most five connections in the middle of a handshake be read per event-loop turn. The
// others stop being read and wait in a last-in-first-out queue, five let out per turn. Under a
// steady stream of new connections (a hundred probes at a time, with an RSA key, whose signature
// makes each turn long) the connections that queued first stay there for many seconds: their
// ClientHello, or their Finished and first request, lie unread while newer ones are served, and the
// client sees a hang. Handshakes are not queued when the TLS runs on a stream rather than on a
// socket, so this listener accepts plain TCP and runs the TLS server side on a stream that
// carries the socket's bytes.
import { createServer as createNetServer, type Server, type Socket } from "node:net";
import { Duplex } from "node:stream";
import { createSecureContext, type SecureContextOptions, TLSSocket } from "node:tls";

export interface TlsListener {
  /** Every accepted connection reaches the listener's onConnection as a server-side TLSSocket. */
  server: Server;
  /** Connections accepted from now on use these options. */
  setSecureContext(options: SecureContextOptions): void;
}

/**
 * A connection that moves no byte either way for this long is closed: one that never finishes its
 * handshake or never sends a request, and kept-alive ones left idle (kube-controller-manager closes
 * those after 90 s too).
 */
const IDLE_TIMEOUT_MS = 90_000;

export function tlsOverPlainTcp(
  contextOptions: SecureContextOptions,
  requestCert: boolean,
  onConnection: (socket: TLSSocket) => void,
): TlsListener {
  let secureContext = createSecureContext(contextOptions);
  const server = createNetServer((tcp) => {
    tcp.on("error", () => tcp.destroy());
    const tls = new TLSSocket(bytesOf(tcp), { isServer: true, secureContext, requestCert, rejectUnauthorized: false });
    // Failed handshakes (scanners, clients that distrust the certificate) concern only that client.
    tls.on("error", () => tcp.destroy());
    tls.once("close", () => tcp.destroy());
    tcp.setTimeout(IDLE_TIMEOUT_MS, () => tcp.destroy());
    onConnection(tls);
  });
  return { server, setSecureContext: (options) => void (secureContext = createSecureContext(options)) };
}

/** A stream of the socket's bytes both ways: a TLSSocket on it is not a uSockets TLS socket. */
function bytesOf(tcp: Socket): Duplex {
  const stream = new Duplex({
    read: () => void tcp.resume(),
    write: (chunk: Buffer, _encoding, done) => void tcp.write(chunk, (err) => done(err ?? null)),
    final: (done) => {
      tcp.end();
      done();
    },
    destroy: (err, done) => {
      tcp.destroy();
      done(err);
    },
  });
  tcp.on("data", (chunk: Buffer) => {
    if (!stream.push(chunk)) tcp.pause();
  });
  tcp.once("end", () => stream.push(null));
  tcp.once("close", () => stream.destroy());
  return stream;
}
