// Start-up gate, as kube-controller-manager's WaitForAPIServer: poll /healthz every second
// until it answers "ok" or the deadline passes, then read /version.
import { realClock, type Clock } from "../clock/clock.ts";
import type { KubeClient } from "../kube/client.ts";
import type { ServerVersion } from "../kube/discovery.ts";
import type { Logger } from "../log/logger.ts";
import { errorMessage, ExpectedError } from "../errors/expected-error.ts";

export class ApiServerUnavailableError extends ExpectedError {
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
        timeoutMs: Math.max(1, Math.min(remaining, 5_000)),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const body = (await response.text()).trim();
      if (body === "ok") return await client.discovery.serverVersion(options.signal);
      lastProblem = `/healthz answered "${body.slice(0, 200)}"`;
    } catch (err) {
      if (options.signal?.aborted) throw err;
      lastProblem = errorMessage(err);
    }
    if (attempt === 1 || attempt % 10 === 0) {
      options.logger.info({ server: client.config.server, problem: lastProblem }, "waiting for the API server");
    }
    if (clock.monotonic() + interval > deadline) {
      throw new ApiServerUnavailableError(
        `API server ${client.config.server} not healthy after ${Math.round(options.timeoutMs / 1000)}s: ${lastProblem}`,
      );
    }
    await clock.sleep(interval, options.signal);
  }
}
