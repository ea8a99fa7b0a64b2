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
  /** One series' count, for a caller that keeps it by its own keys (no label key joined per event). */
  series: (...values: string[]) => () => void;
} {
  // Kept once made, as the counter keeps its series: a held `series` counts on after a scrape.
  const pending = new Map<string, { values: readonly string[]; n: number }>();
  const counter: Counter<L> = new Counter<L>({
    ...config,
    collect() {
      for (const held of pending.values()) {
        if (held.n === 0) continue;
        counter.inc(Object.fromEntries(config.labelNames.map((name, i) => [name, held.values[i]!])) as Partial<Record<L, string>>, held.n);
        held.n = 0;
      }
    },
  });
  const entry = (values: readonly string[]) => {
    const key = values.join('\u0000');
    let held = pending.get(key);
    if (!held) pending.set(key, (held = { values, n: 0 }));
    return held;
  };
  return {
    counter,
    count: (...values) => void entry(values).n++,
    series: (...values) => {
      const held = entry(values);
      return () => void held.n++;
    },
  };
}

interface Series {
  key: string;
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
  /** One series' observe, for a caller that keeps it by its own keys (no label key joined per observation). */
  series: (...values: string[]) => (value: number) => void;
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
    // Zeroed as well as unlisted, so that a series a caller holds starts again from nothing and is listed again by its next observation.
    reset: () => {
      for (const s of series.values()) {
        s.counts.fill(0);
        s.sum = 0;
        s.count = 0;
      }
      series.clear();
    },
  };
  for (const registry of config.registers) registry.registerMetric(metric as unknown as Metric);
  // Listed by its first observation (`add`): a series nothing observed is not exposed, as prom-client's.
  const seriesOf = (labelValues: readonly string[]): Series => {
    const key = labelValues.join('\u0000');
    return series.get(key) ?? newSeries(key, labelValues);
  };
  const newSeries = (key: string, labelValues: readonly string[]): Series => {
    const labels = Object.fromEntries(config.labelNames.map((name, i) => [name, labelValues[i]!]));
    return { key, labels, counts: new Array<number>(bounds.length).fill(0), sum: 0, count: 0 };
  };
  const add = (s: Series, value: number) => {
    // A new series, or one a reset unlisted.
    if (s.count === 0 && series.get(s.key) !== s) series.set(s.key, s);
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    if (i < bounds.length) s.counts[i]!++;
    s.sum += value;
    s.count++;
  };
  return {
    observe: (value, ...labelValues) => add(seriesOf(labelValues), value),
    series: (...labelValues) => {
      const s = seriesOf(labelValues);
      return (value) => add(s, value);
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
