/** Formatting shared by the dashboard pages. Times are rendered in UTC; the page script localises them. */
import { relativeTime } from "../util/relative-time";
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

/** A span of time to the nearest unit worth saying: "45 s", "12 min", "2 h", "10 h 36 min" (seconds dropped from an hour up). */
export function formatDuration(milliseconds: number): string {
  const seconds = Math.round(milliseconds / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
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
