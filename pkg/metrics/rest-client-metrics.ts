// client-go's REST client metrics (k8s.io/client-go/tools/metrics as wired by component-base).
import type { Registry } from "prom-client";
import type { RequestObserver } from "../kube/rest-client.ts";
import { type Observations, type Tally, talliedCounter, talliedHistogram } from "./declare.ts";

// component-base's buckets for rest_client_request_duration_seconds.
const latencyBuckets = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

export function restClientMetrics(registry: Registry): RequestObserver {
  const requests = talliedCounter(registry, "rest_client_requests_total", "HTTP requests to the API server, by response status code, method and host.", ["code", "method", "host"]);
  // One series per code, method and host (and per verb and host), taken once: counted per request, hashed only when read.
  const series = new Map<string, Tally>();
  const latency = talliedHistogram(registry, "rest_client_request_duration_seconds", "Seconds until the API server answered a request, by verb and host.", ["verb", "host"], latencyBuckets);
  const latencies = new Map<string, Observations>();
  return {
    observe({ method, host, code, seconds }) {
      const key = `${code} ${method} ${host}`;
      let tally = series.get(key);
      if (!tally) {
        tally = requests({ code, method, host });
        series.set(key, tally);
      }
      tally.add();
      const verbAndHost = `${method} ${host}`;
      let observations = latencies.get(verbAndHost);
      if (!observations) {
        observations = latency({ verb: method, host });
        latencies.set(verbAndHost, observations);
      }
      observations.observe(seconds);
    },
  };
}
