/** What each scenario returns: rows for the results table and the budget checks it made. */
export interface Row {
  scenario: string;
  requests: number;
  p50: number;
  p95: number;
  /** Requests per second, where the scenario measures throughput. */
  rps: number | null;
  /** Upstream calls per request by service. */
  upstream: string;
  notes: string;
}

export interface Check {
  what: string;
  ok: boolean;
  detail: string;
}

export interface ScenarioResult {
  title: string;
  rows: Row[];
  checks: Check[];
  /** Lines printed under the table (comparisons, memory). */
  facts: string[];
}

export const check = (what: string, ok: boolean, detail: string): Check => ({ what, ok, detail });
