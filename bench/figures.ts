/** Small helpers the bench sections share: percentiles, medians and fixed-width table rows. */

/** The p-th percentile (nearest rank) of `values`; NaN when empty. Does not modify `values`. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

export function milliseconds(value: number): string {
  return Number.isFinite(value) ? `${Math.round(value)}` : "–";
}

/** One table row: the first cell left-aligned, the others right-aligned, each to its width. */
export function row(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0))).join("  ");
}
