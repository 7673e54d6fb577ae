/**
 * The overview's "Limits" card: what the account may have in flight and how much it has now, so a customer who met
 * a 429 can see which bound it was (docs/limits.md).
 */
import type { AccountLimitsView } from "../limits/limits-view";
import { formatNumber } from "./format";
import { Meter } from "./usage-chart";

function InFlight({ label, usage, note }: { label: string; usage: { limit: number; in_use: number }; note: string }) {
  return (
    <li>
      <div class="usage-row">
        <span>{label}</span>
        <span data-testid={`limit-${label.toLowerCase().replaceAll(" ", "-")}`}>
          {formatNumber(usage.in_use)} of {formatNumber(usage.limit)} in use
        </span>
      </div>
      <Meter fraction={usage.limit === 0 ? 0 : Math.min(1, usage.in_use / usage.limit)} />
      <p class="hint">{note}</p>
    </li>
  );
}

/** The refunded-time budget in words: how much of it the last hour used, and what happens (or happened) past it. */
function RefundedTime({ time }: { time: AccountLimitsView["refunded_browser_time"] }) {
  return (
    <p class="hint" data-testid="limit-refunded-browser-time">
      Refunded scrapes (time-outs, disconnects, failures) held browsers for {formatNumber(time.seconds_last_hour)} s in the last hour, of{" "}
      {formatNumber(time.seconds_per_hour)} s allowed.{" "}
      {time.concurrency_reduced
        ? "Past that, the bounds above are a quarter of your limits until those refunds leave the hour."
        : "Past that, the bounds above drop to a quarter until those refunds leave the hour."}
    </p>
  );
}

function hasOwnLimits(limits: AccountLimitsView): boolean {
  return Object.values(limits.account_overrides).some((value) => value !== null);
}

export function LimitsCard({ limits }: { limits: AccountLimitsView }) {
  return (
    <section class="card" aria-labelledby="limits-title">
      <div class="card-head">
        <h2 id="limits-title">Limits</h2>
        <p>Shared browsers stay fair between customers</p>
      </div>
      <ul class="usage-list">
        <InFlight
          label="Synchronous requests"
          usage={limits.concurrent_requests}
          note="Running at once; more are refused with HTTP 429 and Retry-After (nothing is charged)."
        />
        <InFlight label="Running jobs" usage={limits.running_jobs} note="Your other jobs wait their turn; none is refused." />
      </ul>
      <RefundedTime time={limits.refunded_browser_time} />
      <p class="hint" data-testid="limit-requests-per-minute">
        {formatNumber(limits.requests_per_minute.per_key)} requests a minute per key, {formatNumber(limits.requests_per_minute.per_account)}{" "}
        for all your keys together (beyond that, HTTP 429 with Retry-After; polling a job does not count) · up to{" "}
        {formatNumber(limits.api_keys.max_active)} active keys, {formatNumber(limits.api_keys.max_created_per_day)} new keys a day.
        {hasOwnLimits(limits) ? " Some of these limits were set for your account." : ""}
      </p>
    </section>
  );
}
