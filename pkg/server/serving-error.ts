// Why the HTTP server could not start, said so that the operator knows what to change.
import { ExpectedError } from "../errors/expected-error.ts";

export class ServingError extends ExpectedError {
  override readonly name = "ServingError";
}

const remedies: Record<string, string> = {
  EADDRINUSE: "the address is already in use (another kube-loom or kube-controller-manager?); stop it or choose another port",
  EADDRNOTAVAIL: "no network interface of this machine has that address; choose another bind address",
  EACCES: "permission denied (ports below 1024 need privileges); choose a port above 1024",
};

/** Turns a runtime's listen failure into a ServingError naming the address; anything unknown stays as it is. */
export function listenFailure(err: unknown, hostname: string, port: number): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  const remedy = typeof code === "string" ? remedies[code] : undefined;
  if (!remedy) return err;
  return new ServingError(`cannot serve on ${hostname}:${port}: ${remedy}`, { cause: err });
}
