// The manager's HTTP surface: health endpoints in the API server's format, Prometheus
// metrics, kube-controller-manager's /statusz and /flagz, the status page, and debug pages that
// controllers contribute (e.g. the garbage collector's graph).
import { Hono } from "hono";
import type { Registry } from "prom-client";
import type { DebugRoute } from "../debug/debug-route.ts";
import { mountFlagz } from "./flagz.ts";
import { HealthCheckSet, mountHealthEndpoint } from "./health.ts";
import { mountStatusPage, type StatusSource } from "./status-page.ts";
import { type ComponentFacts, mountStatusz } from "./statusz.ts";

export interface HttpEndpoints {
  /** Everything: kube-controller-manager's /healthz. */
  healthz: HealthCheckSet;
  /** Only what a restart would fix (leader election stuck, workers wedged). */
  livez: HealthCheckSet;
  /** What must hold before the process serves its purpose (caches synced). */
  readyz: HealthCheckSet;
  metrics: Registry;
  /** /debug/status and /debug/status.json. */
  status: StatusSource;
  debugRoutes: DebugRoute[];
  /** What /statusz says. */
  component: ComponentFacts;
  /** /flagz: every flag's value, by name. */
  flags: Readonly<Record<string, string>>;
}

export function createHttpApp(endpoints: HttpEndpoints): Hono {
  const app = new Hono();
  mountHealthEndpoint(app, "healthz", endpoints.healthz);
  mountHealthEndpoint(app, "livez", endpoints.livez);
  mountHealthEndpoint(app, "readyz", endpoints.readyz);
  app.get("/metrics", async (c) =>
    c.body(await endpoints.metrics.metrics(), 200, { "Content-Type": endpoints.metrics.contentType }),
  );
  mountStatusPage(app, endpoints.status);
  // Looked up per request: controllers add their pages after the server is already up.
  app.get("/debug/controllers/:controller/*", async (c) => {
    const controller = c.req.param("controller");
    const path = new URL(c.req.url).pathname.slice(`/debug/controllers/${controller}/`.length);
    const route = endpoints.debugRoutes.find((r) => r.controller === controller && r.path === path);
    return route ? route.handler(c.req.raw) : c.notFound();
  });
  mountFlagz(app, endpoints.component.name, endpoints.flags);
  // Last: it lists the paths mounted before it.
  mountStatusz(app, endpoints.component);
  return app;
}
