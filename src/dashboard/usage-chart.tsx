/**
 * Server-rendered SVG bar charts: no chart library and no script, and geometry in SVG attributes (not style
 * attributes) so the page's Content-Security-Policy needs no 'unsafe-inline'.
 */
import type { DailyUsage } from "../accounts/usage";
import { formatNumber, formatShortDay } from "./format";

/**
 * Two geometries of one chart, switched by CSS: an SVG scales its text with its width, so a phone gets its own
 * narrow drawing whose labels stay readable instead of a shrunken copy of the laptop one.
 */
const SIZES = {
  wide: { width: 720, height: 200, left: 44 },
  compact: { width: 360, height: 190, left: 34 },
} as const;
const RIGHT = 8;
const TOP = 12;
const BOTTOM = 26;

/**
 * The axis maximum: the smallest round number at or above `value` whose half is a whole number too, since the axis
 * is labelled at 0, half and the maximum (at least 4, a little over one request's cost).
 */
function niceCeiling(value: number): number {
  if (value <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 4, 5, 6, 8, 10]) {
    const candidate = step * magnitude;
    if (candidate >= value && Number.isInteger(candidate / 2)) return candidate;
  }
  return 10 * magnitude;
}

export function UsageChart({ days, size }: { days: DailyUsage[]; size: keyof typeof SIZES }) {
  const { width: WIDTH, height: HEIGHT, left: LEFT } = SIZES[size];
  const max = niceCeiling(Math.max(0, ...days.map((day) => day.credits)));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(1, days.length);
  const barWidth = Math.max(2, slot * 0.68);
  const ticks = [0, max / 2, max];
  const total = days.reduce((sum, day) => sum + day.credits, 0);
  return (
    <svg
      class={`chart chart-${size}`}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={`Credits used per day over the last ${days.length} days: ${formatNumber(total)} in total`}
    >
      {ticks.map((tick) => {
        const y = TOP + plotHeight - (tick / max) * plotHeight;
        return (
          <g>
            <line class="grid-line" x1={LEFT} x2={WIDTH - RIGHT} y1={y} y2={y} />
            <text x={LEFT - 8} y={y + 4} text-anchor="end">
              {formatNumber(tick)}
            </text>
          </g>
        );
      })}
      {days.map((day, index) => {
        const height = day.credits === 0 ? 2 : Math.max(3, (day.credits / max) * plotHeight);
        const x = LEFT + index * slot + (slot - barWidth) / 2;
        return (
          <rect
            class={day.credits === 0 ? "bar zero" : "bar"}
            x={x.toFixed(1)}
            y={(TOP + plotHeight - height).toFixed(1)}
            width={barWidth.toFixed(1)}
            height={height.toFixed(1)}
            rx="2"
          >
            <title>{`${formatShortDay(day.day)}: ${formatNumber(day.credits)} credits, ${formatNumber(day.requests)} ${day.requests === 1 ? "request" : "requests"}`}</title>
          </rect>
        );
      })}
      {days.map((day, index) =>
        // A label a week apart counting back from today keeps the axis readable at phone width.
        (days.length - 1 - index) % 7 === 0 ? (
          <text x={(LEFT + index * slot + slot / 2).toFixed(1)} y={HEIGHT - 6} text-anchor="middle">
            {index === days.length - 1 ? "Today" : formatShortDay(day.day)}
          </text>
        ) : null,
      )}
    </svg>
  );
}

/** A thin horizontal meter, 0 to 100 %. */
export function Meter({ fraction }: { fraction: number }) {
  const width = Math.max(0, Math.min(1, fraction)) * 100;
  return (
    <svg class="meter" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true">
      <rect class="track" x="0" y="0" width="100" height="6" rx="3" />
      <rect class="fill" x="0" y="0" width={width.toFixed(2)} height="6" rx="3" />
    </svg>
  );
}
