/** Formatting shared by the dashboard pages. Times are rendered in UTC; the page script localises them. */
import { isoTimestamp } from "../util/time";

const NUMBER = new Intl.NumberFormat("en-US");
const DATE_TIME = new Intl.DateTimeFormat("en-US", {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hour12: false,
  timeZone: "UTC",
});
const SHORT_DAY = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" });

export function formatNumber(value: number): string {
  return NUMBER.format(value);
}

export function formatSigned(value: number): string {
  return value > 0 ? `+${NUMBER.format(value)}` : `−${NUMBER.format(Math.abs(value))}`;
}

export function formatShortDay(isoDay: string): string {
  return SHORT_DAY.format(new Date(`${isoDay}T00:00:00Z`));
}

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

/** An absolute time in UTC, converted to the visitor's zone by the page script. */
export function Time({ iso }: { iso: string }) {
  const date = new Date(iso);
  return (
    <time datetime={isoTimestamp(date)} data-local="">
      {DATE_TIME.format(date)} UTC
    </time>
  );
}

/** A relative time with the absolute one as its tooltip. */
export function Ago({ iso, now }: { iso: string | null; now?: number }) {
  if (iso === null) return <span class="hint">Never</span>;
  return (
    <time datetime={isoTimestamp(iso)} title={`${DATE_TIME.format(new Date(iso))} UTC`}>
      {relativeTime(iso, now)}
    </time>
  );
}
