/** An ISO 8601 string from the upstream as a DateTime; null when it is not one (never a field error). */
export function dateOrNull(value: string | null): Date | null {
  if (value === null) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
