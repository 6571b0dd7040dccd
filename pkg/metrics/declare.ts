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

/** One series of a tallied histogram: observing a value is adding to a bucket count and a sum. */
export interface Observations {
  observe(value: number): void;
}

/** One line of a histogram as prom-client's Histogram hands it to the registry: a bucket's `le` apart from the series' labels. */
interface ScrapedValue {
  labels: { le?: number | string };
  sharedLabels: object;
  value: number;
  metricName: string;
}

/**
 * A histogram family for hot paths (every request, every informer event), as talliedCounter is
 * for counters: prom-client's Histogram validates and hashes the labels on every observation,
 * 16 % of an idle elected replica's JavaScript (bench/README.md, "What an idle Lease renewal costs"). Here each series keeps
 * its bucket counts, sum and count as numbers, and the registry reads them, in the exposition
 * prom-client's Histogram gives, when the metrics are scraped. Take a series once per label set
 * and keep it (taking one again finds the same series, at the cost of a lookup); a series never
 * observed is not reported, as with prom-client.
 */
export function talliedHistogram<Label extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly Label[],
  buckets: readonly number[],
): (labels: LabelValues<Label>) => Observations {
  const bounds = [...buckets].sort((a, b) => a - b);
  // Keyed by the label values, so that taking a series twice cannot report it twice.
  const series = new Map<string, { labels: LabelValues<Label>; perBucket: number[]; sum: number; count: number; observations: Observations }>();
  const scrape = (): ScrapedValue[] =>
    [...series.values()].flatMap(({ labels, perBucket, sum, count }) => {
      if (count === 0) return [];
      let cumulative = 0;
      return [
        ...bounds.map((le, i) => ({ labels: { le }, sharedLabels: labels, value: (cumulative += perBucket[i] ?? 0), metricName: `${name}_bucket` })),
        { labels: { le: "+Inf" }, sharedLabels: labels, value: count, metricName: `${name}_bucket` },
        { labels: {}, sharedLabels: labels, value: sum, metricName: `${name}_sum` },
        { labels: {}, sharedLabels: labels, value: count, metricName: `${name}_count` },
      ];
    });
  const family = (values: readonly object[]) => ({ name, help, type: "histogram", aggregator: "sum", values });
  const metric = {
    name,
    help,
    type: "histogram",
    aggregator: "sum",
    // What the registry reads for the exposition, and, as prom-client's get() gives it, with each line's labels in one object.
    getForPromString: async () => family(scrape()),
    get: async () => family(scrape().map(({ labels, sharedLabels, value, metricName }) => ({ labels: { ...sharedLabels, ...labels }, value, metricName }))),
    reset: () => {
      for (const one of series.values()) {
        one.perBucket.fill(0);
        one.sum = 0;
        one.count = 0;
      }
    },
  };
  // The registry reads any metric through these; its type names only prom-client's own classes.
  registry.registerMetric(metric as unknown as Histogram<Label>);
  return (labels) => {
    const key = JSON.stringify(labelNames.map((label) => labels[label]));
    const known = series.get(key);
    if (known) return known.observations;
    const one = {
      labels,
      perBucket: bounds.map(() => 0),
      sum: 0,
      count: 0,
      observations: {
        observe: (value: number) => {
          // prom-client throws on these; one would make the sum NaN for good.
          if (!Number.isFinite(value)) return;
          const bucket = bounds.findIndex((bound) => value <= bound);
          if (bucket >= 0) one.perBucket[bucket]!++;
          one.sum += value;
          one.count++;
        },
      },
    };
    series.set(key, one);
    return one.observations;
  };
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
