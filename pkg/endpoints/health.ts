// /healthz, /livez and /readyz in the API server's format (k8s.io/apiserver/pkg/server/healthz),
// so probes and people reading them see what they know from kube-apiserver and kube-controller-manager.
import { Hono } from "hono";
import { errorMessage } from "../errors/expected-error.ts";
import type { HealthCheck } from "../health/health-check.ts";

/**
 * The checks behind one endpoint, listed by name: what /healthz shows does not depend on the order
 * in which the parts of the process were built. Checks can be added after the server started
 * (controllers register late).
 */
export class HealthCheckSet {
  private readonly checks: HealthCheck[] = [];

  add(...checks: HealthCheck[]): void {
    for (const check of checks) {
      if (this.checks.some((c) => c.name === check.name)) throw new Error(`health check "${check.name}" registered twice`);
      const at = this.checks.findIndex((c) => c.name > check.name);
      this.checks.splice(at < 0 ? this.checks.length : at, 0, check);
    }
  }

  list(): readonly HealthCheck[] {
    // With nothing to check, the endpoint still answers through a trivial ping, as the API server does.
    return this.checks.length ? this.checks : [pingCheck];
  }
}

const pingCheck: HealthCheck = { name: "ping", check: () => undefined };

/** Mounts `/<endpoint>` and `/<endpoint>/<check>` on the app. */
export function mountHealthEndpoint(app: Hono, endpoint: "healthz" | "livez" | "readyz", checks: HealthCheckSet): void {
  app.get(`/${endpoint}`, async (c) => {
    const url = new URL(c.req.url);
    const verbose = url.searchParams.has("verbose");
    const excluded = new Set(url.searchParams.getAll("exclude").flatMap((v) => v.split(",")).filter(Boolean));
    const lines: string[] = [];
    let failed = false;
    for (const check of checks.list()) {
      if (excluded.delete(check.name)) {
        lines.push(`[+]${check.name} excluded: ok`);
        continue;
      }
      const error = await runCheck(check);
      if (error === undefined) lines.push(`[+]${check.name} ok`);
      else {
        failed = true;
        lines.push(`[-]${check.name} failed: reason withheld`);
      }
    }
    if (excluded.size) {
      const names = [...excluded].map((n) => JSON.stringify(n)).join(", ");
      lines.unshift(`warn: some health checks cannot be excluded: no matches for ${names}`);
    }
    if (failed) return text(c, 500, `${lines.join("\n")}\n${endpoint} check failed\n`);
    if (verbose) return text(c, 200, `${lines.join("\n")}\n${endpoint} check passed\n`);
    return text(c, 200, "ok");
  });

  app.get(`/${endpoint}/:check`, async (c) => {
    const check = checks.list().find((k) => k.name === c.req.param("check"));
    if (!check) return c.notFound();
    const error = await runCheck(check);
    return error === undefined ? text(c, 200, "ok") : text(c, 500, `internal server error: ${error}\n`);
  });
}

async function runCheck(check: HealthCheck): Promise<string | undefined> {
  try {
    await check.check();
    return undefined;
  } catch (err) {
    return errorMessage(err);
  }
}

function text(c: { body: (data: string, status: 200 | 500, headers: Record<string, string>) => Response }, status: 200 | 500, body: string): Response {
  return c.body(body, status, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" });
}
