/** Semver ranges read as npm reads them, for the tests that check versions (no semver package is a dependency). */

/** A version as [major, minor, patch], missing or `x` parts as null. */
export function parseVersion(text: string): (number | null)[] {
  const parts = text.replace(/^v/, '').split('.');
  return [0, 1, 2].map((i) => (parts[i] === undefined || /^[xX*]$/.test(parts[i]) ? null : Number(parts[i])));
}

function compare(a: number[], b: (number | null)[]): number {
  for (let i = 0; i < 3; i++) if (a[i]! !== (b[i] ?? 0)) return a[i]! - (b[i] ?? 0);
  return 0;
}

/** The subset of npm's semver ranges that `engines.node` fields use: `>=`, `>`, `<`, `<=`, `^`, `~`, bare versions and `||`. */
export function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version) as number[];
  return range.split('||').some((alternative) =>
    alternative
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .trim()
      .split(/\s+/)
      .every((comparator) => {
        const [, op = '', rest = ''] = /^(>=|<=|>|<|=|\^|~)?(.*)$/.exec(comparator)!;
        const r = parseVersion(rest);
        const c = compare(v, r);
        if (op === '>=') return c >= 0;
        if (op === '>') return c > 0;
        if (op === '<=') return c <= 0;
        if (op === '<') return c < 0;
        if (op === '^') return c >= 0 && v[0] === r[0] && (r[0] !== 0 || r[1] === null || v[1] === r[1]);
        if (op === '~') return c >= 0 && v[0] === r[0] && (r[1] === null || v[1] === r[1]);
        return r.every((part, i) => part === null || part === v[i]);
      }),
  );
}
