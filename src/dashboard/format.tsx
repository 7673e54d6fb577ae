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
