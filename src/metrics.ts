import { Counter, type CounterConfiguration } from 'prom-client';

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
