// HTTPS with what kube-controller-manager's secure port offers: a certificate replaced without a
// restart, client certificates whose subject reaches the handler, a minimum TLS version, cipher
// suites and key exchanges. Bun.serve and Deno.serve cannot hand a request's client certificate to the
// handler nor swap certificates, so this server is node:tls (which both runtimes implement, with
// setSecureContext and getPeerCertificate) feeding its connections to node:http; on Bun, TLS runs
// over plain TCP instead of on a node:tls listener (see tls-over-plain-tcp.ts).
import { createServer as createHttpServer } from "node:http";
import { createServer as createTlsServer, type SecureContextOptions, type TLSSocket } from "node:tls";
import { sendFetchResponse, toFetchRequest } from "./node-http-bridge.ts";
import { type RunningServer, urlOf } from "./serve.ts";
import type { ServingKeyPair } from "./serving-certificate.ts";
import { listenFailure, ServingError } from "./serving-error.ts";
import { ecdhCurveList } from "../tls/tls-curves.ts";
import { openSslCipherList, type TlsVersionName, tlsVersions } from "../tls/tls-parameters.ts";
import { type TlsListener, tlsOverPlainTcp } from "./tls-over-plain-tcp.ts";

/** A client certificate that verified against the client CA: who it names. */
export interface PeerIdentity {
  commonName: string;
  organizations: string[];
}

export type PeerAwareHandler = (request: Request, peer: PeerIdentity | undefined) => Response | Promise<Response>;

export interface TlsSettings {
  pair: ServingKeyPair;
  /** Whether clients are asked for a certificate at all; fixed for the server's life. */
  clientCertificates: boolean;
  /** PEM bundle that client certificates are verified against; none (yet) = every certificate ignored. */
  clientCa: string | undefined;
  minVersion: TlsVersionName | undefined;
  /** IANA names; empty = the runtime's defaults. */
  cipherSuites: readonly string[];
  /** Go CurveIDs the options checked the runtime can offer; empty = the runtime's defaults. */
  curvePreferences: readonly number[];
}

export interface SecureServer extends RunningServer {
  /** New connections get the new certificate or client CA; open ones keep what they negotiated. */
  update(pair: ServingKeyPair, clientCa: string | undefined): void;
}

export async function serveTls(handler: PeerAwareHandler, hostname: string, port: number, settings: TlsSettings): Promise<SecureServer> {
  refuseWhatTheRuntimeIgnores(settings);
  const contextOptions = (pair: ServingKeyPair, clientCa: string | undefined) => secureContextOptions({ ...settings, pair, clientCa });
  const http = createHttpServer(async (req, res) => {
    let request: Request;
    try {
      request = toFetchRequest(req, "https", hostname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const response = await Promise.resolve(handler(request, peerIdentity(req.socket as TLSSocket))).catch(
      () => new Response("internal server error\n", { status: 500 }),
    );
    await sendFetchResponse(res, response);
  });
  const connections = new Set<TLSSocket>();
  const tls = tlsListener(contextOptions(settings.pair, settings.clientCa), settings.clientCertificates, (socket) => {
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
    http.emit("connection", socket);
  });
  try {
    await new Promise<void>((resolve, reject) => tls.server.once("error", reject).listen(port, hostname, resolve));
  } catch (err) {
    throw listenFailure(err, hostname, port);
  }
  const address = tls.server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  return {
    url: urlOf(hostname, bound, "https"),
    port: bound,
    update: (pair, clientCa) => tls.setSecureContext(contextOptions(pair, clientCa)),
    stop: () =>
      new Promise<void>((resolve) => {
        tls.server.close(() => resolve());
        // Keep-alive connections would hold close() open.
        for (const socket of connections) socket.destroy();
      }),
  };
}

/**
 * node:tls's own server where it holds load; on Bun, TLS over plain TCP. Both check a client
 * certificate without requiring it (rejectUnauthorized: false): a client without one, or with a bad
 * one, may still authenticate with a bearer token, so the handshake never fails over it.
 */
function tlsListener(options: SecureContextOptions, requestCert: boolean, onConnection: (socket: TLSSocket) => void): TlsListener {
  if ("Bun" in globalThis) return tlsOverPlainTcp(options, requestCert, onConnection);
  const server = createTlsServer({ ...options, requestCert, rejectUnauthorized: false }, onConnection);
  // Failed handshakes (scanners, clients that distrust the certificate) concern only that client.
  server.on("tlsClientError", () => undefined);
  return { server, setSecureContext: (next) => server.setSecureContext(next) };
}

function secureContextOptions(settings: TlsSettings): SecureContextOptions {
  const ciphers = settings.cipherSuites.length ? openSslCipherList(settings.cipherSuites) : undefined;
  // Only TLS 1.3 suites named: nothing older can be negotiated.
  const tls13Only = settings.cipherSuites.length > 0 && ciphers === undefined;
  const minVersion = tls13Only ? "TLSv1.3" : settings.minVersion && tlsVersions[settings.minVersion];
  const ecdhCurve = ecdhCurveList(settings.curvePreferences);
  return {
    cert: settings.pair.certPem,
    key: settings.pair.keyPem,
    ...(settings.clientCa === undefined ? {} : { ca: settings.clientCa }),
    ...(minVersion ? { minVersion } : {}),
    ...(ciphers ? { ciphers } : {}),
    ...(ecdhCurve ? { ecdhCurve } : {}),
  };
}

function refuseWhatTheRuntimeIgnores(settings: TlsSettings): void {
  if ("Deno" in globalThis && settings.cipherSuites.length > 0) {
    throw new ServingError("--tls-cipher-suites cannot be honoured on Deno, whose TLS server offers its own suites whatever it is told; leave the flag out or run kube-loom on Bun or Node.js");
  }
}

function peerIdentity(socket: TLSSocket): PeerIdentity | undefined {
  if (!socket.authorized) return undefined;
  // Typed as single strings, but a subject with two O (or CN) entries comes as an array.
  const subject = socket.getPeerCertificate().subject as unknown as Record<string, string | string[] | undefined> | undefined;
  const list = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
  // Go reads the last CN when a subject has several; so does this.
  const commonName = list(subject?.CN).at(-1);
  return commonName === undefined ? undefined : { commonName, organizations: list(subject?.O) };
}
