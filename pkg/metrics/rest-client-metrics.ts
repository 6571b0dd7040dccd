// client-go's REST client metrics (k8s.io/client-go/tools/metrics as wired by component-base).
import { Counter, Histogram, type Registry } from "prom-client";
import type { RequestObserver } from "../kube/rest-client.ts";

export function restClientMetrics(registry: Registry): RequestObserver {
  const requests = new Counter({
    name: "rest_client_requests_total",
    help: "Number of HTTP requests, partitioned by status code, method, and host.",
    labelNames: ["code", "method", "host"],
    registers: [registry],
  });
  const latency = new Histogram({
    name: "rest_client_request_duration_seconds",
    help: "Request latency in seconds. Broken down by verb, and host.",
    labelNames: ["verb", "host"],
    buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
    registers: [registry],
  });
  return {
    observe({ method, host, code, seconds }) {
      requests.inc({ code, method, host });
      latency.observe({ verb: method, host }, seconds);
    },
  };
}
