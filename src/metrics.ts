import { Counter, type CounterConfiguration, type Metric, type Registry } from 'prom-client';

/**
 * A Prometheus counter for events counted many times a request (an asset lookup per token of a screen):
 * each count is a number added in a map, and the counter learns the totals when it is collected (a
 * scrape, or a test reading it), instead of validating and hashing its labels on every event.
 * `count(...values)` takes the label values in `labelNames` order.
 */
export function tallyCounter<L extends string>(config: Omit<CounterConfiguration<L>, 'collect'> & { labelNames: readonly L[] }): {
  counter: Counter<L>;
  count: (...values: string[]) => void;
} {
  const pending = new Map<string, { values: readonly string[]; n: number }>();
  const counter: Counter<L> = new Counter<L>({
    ...config,
    collect() {
      for (const { values, n } of pending.values()) {
        counter.inc(Object.fromEntries(config.labelNames.map((name, i) => [name, values[i]!])) as Partial<Record<L, string>>, n);
      }
      pending.clear();
    },
  });
  return {
    counter,
    count: (...values) => {
      const key = values.join('\u0000');
      const held = pending.get(key);
      if (held) held.n++;
      else pending.set(key, { values, n: 1 });
    },
  };
}

interface Series {
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative), the last one past every bound. */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram observed many times a request (each upstream call): an observation finds its
 * series by one string key and adds to arrays, where prom-client's `observe` validates and hashes its
 * label object every time (a fifth of an upstream call's own machinery in the phase profile, bench/PHASES.md). Registered as a metric of its own; its exposition is prom-client's.
 * `observe(value, ...labelValues)` takes the label values in `labelNames` order.
 */
export function tallyHistogram(config: { name: string; help: string; labelNames: readonly string[]; buckets: readonly number[]; registers: readonly Registry[] }): {
  observe: (value: number, ...values: string[]) => void;
} {
  const bounds = [...config.buckets].sort((a, b) => a - b);
  const series = new Map<string, Series>();
  const values = () => {
    const out: { labels: Record<string, string | number>; sharedLabels: Record<string, string>; value: number; metricName: string }[] = [];
    for (const s of series.values()) {
      let cumulative = 0;
      bounds.forEach((le, i) => out.push({ labels: { le }, sharedLabels: s.labels, value: (cumulative += s.counts[i]!), metricName: `${config.name}_bucket` }));
      out.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${config.name}_bucket` });
      out.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${config.name}_sum` });
      out.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${config.name}_count` });
    }
    return out;
  };
  const metric = {
    name: config.name,
    help: config.help,
    type: 'histogram',
    aggregator: 'sum',
    getForPromString: () => Promise.resolve({ name: config.name, help: config.help, type: 'histogram', values: values(), aggregator: 'sum' }),
    get: () =>
      Promise.resolve({
        name: config.name,
        help: config.help,
        type: 'histogram',
        values: values().map(({ labels, sharedLabels, value, metricName }) => ({ value, metricName, ...('le' in labels ? { exemplar: null } : {}), labels: { ...labels, ...sharedLabels } })),
        aggregator: 'sum',
      }),
    reset: () => series.clear(),
  };
  for (const registry of config.registers) registry.registerMetric(metric as unknown as Metric);
  return {
    observe(value, ...labelValues) {
      const key = labelValues.join('\u0000');
      let s = series.get(key);
      if (!s) {
        const labels = Object.fromEntries(config.labelNames.map((name, i) => [name, labelValues[i]!]));
        series.set(key, (s = { labels, counts: new Array<number>(bounds.length).fill(0), sum: 0, count: 0 }));
      }
      let i = 0;
      while (i < bounds.length && value > bounds[i]!) i++;
      if (i < bounds.length) s.counts[i]!++;
      s.sum += value;
      s.count++;
    },
  };
}

/**
 * A Prometheus counter of numbers the process keeps itself (an increment where the event happens, no
 * label hashing on the hot path), one series per key of what `read` returns, read when scraped.
 * Registered once per registry: a second app over the same services reads the same numbers.
 */
export function processCounter(registry: Registry, config: { name: string; help: string; label: string; read: () => Readonly<Record<string, number>> }): void {
  if (registry.getSingleMetric(config.name)) return;
  new Counter({
    name: config.name,
    help: config.help,
    labelNames: [config.label],
    registers: [registry],
    collect() {
      this.reset();
      for (const [value, n] of Object.entries(config.read())) this.inc({ [config.label]: value }, n);
    },
  });
}
