// Serves a fetch handler (a Hono app) on whichever runtime kube-loom runs on.
import { createServer } from "node:http";
import { sendFetchResponse, toFetchRequest } from "./node-http-bridge.ts";
import { listenFailure } from "./serving-error.ts";

export type FetchHandler = (request: Request) => Response | Promise<Response>;

export interface RunningServer {
  /** The bound address, e.g. http://127.0.0.1:10257 (the real port when 0 was asked for). */
  url: string;
  port: number;
  stop(): Promise<void>;
}

// The slices of the runtimes' own APIs used here, declared locally so each runtime's type checker accepts the file.
interface BunServeApi {
  serve(options: { hostname: string; port: number; fetch: FetchHandler }): { port?: number; stop(force: boolean): Promise<void> | void };
}

interface DenoServeApi {
  serve(
    options: { hostname: string; port: number; onListen?: (addr: { port: number }) => void },
    handler: FetchHandler,
  ): { addr: { port: number }; shutdown(): Promise<void> };
}

/** Starts serving; a listen failure an operator can fix (port taken, unknown address) is a ServingError. */
export async function serve(handler: FetchHandler, hostname: string, port: number): Promise<RunningServer> {
  try {
    return await listen(handler, hostname, port);
  } catch (err) {
    throw listenFailure(err, hostname, port);
  }
}

async function listen(handler: FetchHandler, hostname: string, port: number): Promise<RunningServer> {
  if ("Bun" in globalThis) {
    const bun = (globalThis as unknown as { Bun: BunServeApi }).Bun;
    const server = bun.serve({ hostname, port, fetch: handler });
    const bound = server.port ?? port;
    return { url: urlOf(hostname, bound), port: bound, stop: async () => void (await server.stop(true)) };
  }
  if ("Deno" in globalThis) {
    const deno = (globalThis as unknown as { Deno: DenoServeApi }).Deno;
    const server = deno.serve({ hostname, port, onListen: () => undefined }, handler);
    return { url: urlOf(hostname, server.addr.port), port: server.addr.port, stop: () => server.shutdown() };
  }
  return serveWithNodeHttp(handler, hostname, port);
}

async function serveWithNodeHttp(handler: FetchHandler, hostname: string, port: number): Promise<RunningServer> {
  const server = createServer(async (req, res) => {
    await sendFetchResponse(res, await handler(toFetchRequest(req, "http", hostname)));
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, hostname, resolve));
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  return {
    url: urlOf(hostname, bound),
    port: bound,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Where a client on this machine reaches a server bound to `hostname`. */
export function urlOf(hostname: string, port: number, scheme: "http" | "https" = "http"): string {
  const host = hostname === "0.0.0.0" || hostname === "::" ? "127.0.0.1" : hostname;
  return `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}`;
}
