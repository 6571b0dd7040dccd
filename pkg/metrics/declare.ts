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

/** One series of a held gauge: setting it is setting a number. */
export interface HeldValue {
  set(value: number): void;
}

/**
 * A gauge family for hot paths (an informer's every event), as talliedCounter is for counters:
 * each series holds its last value and prom-client hears of it when the metrics are read. Take
 * a series once per label set and keep it; a series never set is not reported.
 */
export function heldGauge<Label extends string = never>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly Label[] = [],
): (labels: LabelValues<Label>) => HeldValue {
  const series: { labels: LabelValues<Label>; value: number | undefined }[] = [];
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    collect(this: Gauge<Label>) {
      for (const one of series) if (one.value !== undefined) this.set(one.labels, one.value);
    },
  });
  return (labels) => {
    const one: { labels: LabelValues<Label>; value: number | undefined } = { labels, value: undefined };
    series.push(one);
    return { set: (value) => void (one.value = value) };
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
