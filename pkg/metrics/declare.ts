// The one way kube-loom declares a metric: each component states only what is its own (name,
// help, labels, buckets) and every metric lands on the registry it was given, never on
// prom-client's global one.
import { Counter, Gauge, Histogram, type LabelValues, type Registry } from "prom-client";

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

/** One series of a tallied counter: adding to it is adding to a number. */
export interface Tally {
  add(count?: number): void;
}

/**
 * A counter family for hot paths (an informer event, a queue add). prom-client hashes the labels
 * on every inc, a few percent of a 100,000-object start; here each series is a plain number that
 * prom-client hears of when the metrics are read. Take a series once per label set and keep it:
 * every call of the returned function makes a new one.
 */
export function talliedCounter<Label extends string = never>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly Label[] = [],
): (labels: LabelValues<Label>) => Tally {
  const series: { labels: LabelValues<Label>; pending: number }[] = [];
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect(this: Counter<Label>) {
      for (const one of series) {
        if (one.pending === 0) continue;
        this.inc(one.labels, one.pending);
        one.pending = 0;
      }
    },
  });
  return (labels) => {
    const one = { labels, pending: 0 };
    series.push(one);
    return { add: (count = 1) => void (one.pending += count) };
  };
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
