// One `fetch` per runtime that really applies the cluster's TLS settings.
// client-node hands its TLS material to undici through a `dispatcher`, which Bun silently
// drops (custom CA → SELF_SIGNED_CERT_IN_CHAIN, client certificates never sent); so every
// request of kube-loom goes through the function built here instead.
import { ExpectedError } from "../errors/expected-error.ts";
import { requireSupportedNode } from "./node-version.ts";

/** How the connection to the API server is secured, as a kubeconfig cluster and user describe it. */
export interface TlsOptions {
  /** PEM bundle of the CAs that sign the API server's certificate; absent = system roots. */
  ca?: string;
  /** PEM client certificate and key, for certificate authentication. */
  cert?: string;
  /** PEM private key of `cert`. */
  key?: string;
  /** kubeconfig `insecure-skip-tls-verify`. */
  insecureSkipVerify?: boolean;
  /** kubeconfig `tls-server-name`: the name the serving certificate is checked against. */
  serverName?: string;
}

/** A request as the runtimes' fetch takes it, plus what only kube-loom's transport reads. */
export interface TransportInit extends RequestInit {
  /** The body stays open for minutes and comes in bursts: a watch. */
  longLived?: boolean;
}

/** The transport's request function: fetch's shape, with kube-loom's TLS on every runtime. A test may pass a fake. */
export type Fetch = (url: string, init: TransportInit) => Promise<Response>;

export type Runtime = "bun" | "deno" | "node";

export function currentRuntime(): Runtime {
  if ("Bun" in globalThis) return "bun";
  if ("Deno" in globalThis) return "deno";
  return "node";
}

export async function createFetch(tls: TlsOptions, runtime: Runtime = currentRuntime()): Promise<Fetch> {
  switch (runtime) {
    case "bun":
      return bunFetch(tls);
    case "deno":
      return denoFetch(tls);
    case "node":
      return nodeFetch(tls);
  }
}

function bunFetch(tls: TlsOptions): Fetch {
  const options = {
    ...(tls.ca ? { ca: tls.ca } : {}),
    ...(tls.cert ? { cert: tls.cert } : {}),
    ...(tls.key ? { key: tls.key } : {}),
    ...(tls.serverName ? { serverName: tls.serverName } : {}),
    rejectUnauthorized: !tls.insecureSkipVerify,
  };
  // HTTP/2, as client-go speaks to the API server: a few connections carry every request, where
  // HTTP/1.1 opens one per request in flight (hundreds of TLS handshakes for a burst of creates).
  // A server that does not offer it (a proxy) fails the handshake before anything is sent: that
  // request and every later one go over HTTP/1.1.
  // Watches stay on HTTP/1.1, one connection each: Bun's HTTP/2 client hands out flow-control
  // window only as fast as JavaScript reads, so a burst of events while the process is busy
  // (a batch of creates) stalls the stream, and the API server closes a watcher it cannot hand
  // events to (apiserver_terminated_watchers_total). A TCP connection's buffers absorb the burst.
  let http2 = true;
  // `tls` and `protocol` are Bun's own fetch options; other runtimes' RequestInit types do not know them.
  const http11 = (url: string, init: RequestInit) => fetch(url, { ...init, tls: options } as RequestInit);
  return async (url, { longLived, ...init }) => {
    if (longLived || !http2 || !url.startsWith("https:")) return http11(url, init);
    try {
      return await fetch(url, { ...init, tls: options, protocol: "http2" } as RequestInit);
    } catch (err) {
      if ((err as { code?: unknown }).code !== "HTTP2Unsupported") throw err;
      http2 = false;
      return http11(url, init);
    }
  };
}

/** The slice of Deno's API used here; declared locally so the code type-checks under tsc too. */
interface DenoHttpApi {
  createHttpClient(options: { caCerts?: string[]; cert?: string; key?: string }): object;
}

/** A kubeconfig TLS setting the runtime's HTTP client cannot take: the user's to change, not a bug. */
class RuntimeTlsLimitError extends ExpectedError {
  override readonly name = "RuntimeTlsLimitError";
}

function denoFetch(tls: TlsOptions): Fetch {
  // Deno's createHttpClient has neither setting; going on would fail every request with a certificate error.
  if (tls.insecureSkipVerify) {
    throw new RuntimeTlsLimitError(
      "insecure-skip-tls-verify cannot be set per client on Deno: give the cluster's certificate-authority, or run kube-loom on Bun or Node.js",
    );
  }
  if (tls.serverName) {
    throw new RuntimeTlsLimitError(
      "tls-server-name cannot be set per client on Deno: use a server URL whose host the certificate names, or run kube-loom on Bun or Node.js",
    );
  }
  const deno = (globalThis as unknown as { Deno: DenoHttpApi }).Deno;
  const client = deno.createHttpClient({
    ...(tls.ca ? { caCerts: [tls.ca] } : {}),
    ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
  });
  return (url, init) => fetch(url, { ...init, client } as RequestInit);
}

async function nodeFetch(tls: TlsOptions): Promise<Fetch> {
  requireSupportedNode(process.version);
  // Node's global fetch is undici underneath; an Agent of the same library carries the TLS options.
  const { Agent, fetch: undiciFetch } = await import("undici");
  const dispatcher = new Agent({
    connect: {
      ...(tls.ca ? { ca: tls.ca } : {}),
      ...(tls.cert ? { cert: tls.cert } : {}),
      ...(tls.key ? { key: tls.key } : {}),
      ...(tls.serverName ? { servername: tls.serverName } : {}),
      rejectUnauthorized: !tls.insecureSkipVerify,
    },
  });
  return (url, init) => undiciFetch(url, { ...init, dispatcher } as never) as unknown as Promise<Response>;
}
