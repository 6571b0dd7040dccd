// Start-up gate, as kube-controller-manager's WaitForAPIServer: poll /healthz every second
// until it answers "ok" or the deadline passes, then read /version.
import { realClock, type Clock } from "../clock/clock.ts";
import { ClientConfigError } from "../kube/client-config.ts";
import type { KubeClient } from "../kube/client.ts";
import type { ServerVersion } from "../kube/discovery.ts";
import type { Logger } from "../log/logger.ts";
import { errorMessage, ExpectedError } from "../errors/expected-error.ts";

class ApiServerUnavailableError extends ExpectedError {
  override readonly name = "ApiServerUnavailableError";
}

export async function waitForApiServer(
  client: KubeClient,
  options: { timeoutMs: number; logger: Logger; signal?: AbortSignal; clock?: Clock; intervalMs?: number },
): Promise<ServerVersion> {
  const clock = options.clock ?? realClock;
  const deadline = clock.monotonic() + options.timeoutMs;
  const interval = options.intervalMs ?? 1000;
  let lastProblem = "no answer yet";
  for (let attempt = 1; ; attempt++) {
    const remaining = deadline - clock.monotonic();
    try {
      const response = await client.rest.send({
        method: "GET",
        path: "/healthz",
        // The attempt at the deadline still gets a second: a 1 ms timeout would only report itself.
        timeoutMs: Math.max(1_000, Math.min(remaining, 5_000)),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const body = (await response.text()).trim();
      if (body === "ok") return await client.discovery.serverVersion(options.signal);
      lastProblem = `/healthz answered "${body.slice(0, 200)}"`;
    } catch (err) {
      // A kubeconfig that cannot work will not start working by waiting.
      if (options.signal?.aborted || err instanceof ClientConfigError) throw err;
      lastProblem = errorMessage(err);
    }
    if (attempt === 1 || attempt % 10 === 0) {
      options.logger.info({ server: client.config.server, problem: lastProblem }, "waiting for the API server");
    }
    const left = deadline - clock.monotonic();
    if (left <= 0) {
      throw new ApiServerUnavailableError(`API server ${client.config.server} not healthy after ${seconds(options.timeoutMs)}: ${lastProblem}`);
    }
    // The last attempt comes at the deadline itself, so the whole timeout is used.
    await clock.sleep(Math.min(interval, left), options.signal);
  }
}

/** 2500 → "2.5s", 3000 → "3s". */
function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10}s`;
}
