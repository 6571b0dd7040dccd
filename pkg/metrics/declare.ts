// The one way kube-loom declares a metric: each component states only what is its own (name,
// help, labels, buckets) and every metric lands on the registry it was given, never on
// prom-client's global one.
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** Sets a gauge from state read when /metrics is scraped. */
export type GaugeCollector<Label extends string> = (gauge: Gauge<Label>) => void;

export function counter<Label extends string = never>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly Label[] = [],
): Counter<Label> {
  return new Counter({ name, help, labelNames, registers: [registry] });
}

export function gauge<Label extends string = never>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly Label[] = [],
  collect?: GaugeCollector<Label>,
): Gauge<Label> {
  return new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    ...(collect && {
      collect(this: Gauge<Label>) {
        collect(this);
      },
    }),
  });
}

/** Buckets are required: prom-client's defaults suit no metric of ours. */
export function histogram<Label extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly Label[],
  buckets: readonly number[],
): Histogram<Label> {
  // prom-client freezes the array it is given; a copy leaves the caller's list alone.
  return new Histogram({ name, help, labelNames, buckets: [...buckets], registers: [registry] });
}
