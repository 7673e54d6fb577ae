/**
 * Relative times for the pages we render: the dashboard (src/dashboard/format.tsx) and the public status page
 * (src/http/status-page.tsx) say "3 min ago" the same way.
 */

/** "3 min ago", "2 h ago", "5 days ago": coarse on purpose, the exact time is in the tooltip. */
export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000);
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  return days === 1 ? "yesterday" : `${days} days ago`;
}
