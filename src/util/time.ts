/** ISO 8601 with an explicit numeric offset (`+00:00`), as the job records promise. */
export function isoTimestamp(date: Date | number = new Date()): string {
  return new Date(date).toISOString().replace("Z", "+00:00");
}
