/**
 * Failed admin-token attempts, counted per client address with the limiter's own arithmetic (GCRA,
 * src/limits/rate-window.ts): ADMIN_FAILURES_PER_MINUTE failures at once, then one more every 60/N seconds. Past that,
 * the address gets a 429 with Retry-After before its token is even compared, so guessing yields no answers.
 *
 * The counters live in this isolate's memory, not in a shared store: the token is at least 32 characters (see
 * src/http/admin-token.ts), which no throttle needs to protect from guessing; this one stops a client from hammering the
 * operator API and its logs, and keeps every isolate's guessing rate bounded. An IPv6 client is counted by its /64, the
 * smallest block a network hands out, so rotating addresses inside it buys no attempts.
 */
import { checkRate, isIdle } from "../limits/rate-window";
import { parseIpv6 } from "../webhooks/ip-address";

export const ADMIN_FAILURES_PER_MINUTE = 10;
/** Bounds this isolate's memory whatever the number of addresses: the least recently failing are forgotten first. */
const MAX_TRACKED_CLIENTS = 10_000;

/** The address whose failures count together: the IPv4 address, or the IPv6 /64 (its first four groups). */
export function clientOfAddress(address: string): string {
  const bytes = parseIpv6(address);
  if (bytes === null || address.includes(".")) return address;
  const groups: string[] = [];
  for (let index = 0; index < 8; index += 2) groups.push((((bytes[index] ?? 0) << 8) | (bytes[index + 1] ?? 0)).toString(16));
  return `${groups.join(":")}::/64`;
}

export class FailedAttempts {
  /** By client: the GCRA counter of its failures (when its allowance is full again). */
  private readonly counters = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly maxTracked: number = MAX_TRACKED_CLIENTS,
  ) {}

  /** Milliseconds until `client` may try again, or 0 when one more failure still fits. */
  retryAfterMs(client: string, now: number): number {
    const check = checkRate(this.counters.get(client), this.perMinute, now);
    return check.allowed ? 0 : check.retryAfterMs;
  }

  recordFailure(client: string, now: number): void {
    const check = checkRate(this.counters.get(client), this.perMinute, now);
    if (!check.allowed) return;
    // Deleted first so the Map's order is the order of the latest failure, which is what forgetting goes by.
    this.counters.delete(client);
    this.counters.set(client, check.fullAt);
    if (this.counters.size > this.maxTracked) this.forget(now);
  }

  private forget(now: number): void {
    for (const [client, fullAt] of this.counters) if (isIdle(fullAt, now)) this.counters.delete(client);
    for (const client of this.counters.keys()) {
      if (this.counters.size <= this.maxTracked) return;
      this.counters.delete(client);
    }
  }
}
