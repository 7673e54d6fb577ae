/**
 * Up, degraded or down: the thresholds of the status page (docs/status.md) as one pure function of the last hour's
 * figures and the provider's latest canary rounds.
 */
import type { ProviderState, ServiceStatus, WindowFigures } from "./status-schema";

export const STATUS_THRESHOLDS = {
  /** Consecutive canary rounds in which every canary failed that make a provider down (one alone is a blip). */
  failedRoundsForDown: 2,
  /** A success rate over the last hour (canaries and traffic together) below this is degraded… */
  degradedBelowRate: 0.9,
  /** …and below this is down… */
  downBelowRate: 0.5,
  /** …judged only from this many scrapes in the hour, so one failed canary of six is not read as 83 %. */
  minScrapesForRate: 10,
  /**
   * Customers' failures count only when at least this many distinct accounts saw the provider fail in the hour. One
   * account's failures (refunded, so free to it) say more about that account than about the provider; three accounts
   * failing independently within an hour rarely happens unless the provider is in trouble.
   */
  minFailingAccounts: 3,
} as const;

/** One canary round of one provider: its canaries (one per country) and how many of them failed. */
export interface CanaryRound {
  roundAt: number;
  canaries: number;
  failed: number;
}

interface ProviderEvidence {
  lastHour: {
    canaries: WindowFigures;
    traffic: WindowFigures;
    /** How many distinct accounts had a customer scrape of the provider fail in the hour. */
    trafficFailingAccounts: number;
  };
  /** The provider's canary rounds of the last hour, newest first. */
  recentRounds: readonly CanaryRound[];
}

/**
 * - down: the last 2 canary rounds failed on every canary, or ≥ 10 scrapes in the last hour with a success rate < 50 %;
 * - degraded: otherwise, a canary of the latest round failed, or ≥ 10 scrapes in the hour with a success rate < 90 %;
 * - up: otherwise, with at least one scrape (canary or customer) in the last hour;
 * - unknown: no scrape at all in the last hour.
 * Canaries always count. Customers' failed scrapes count in the rate only when at least 3 distinct accounts had one in
 * the hour; otherwise they are set aside (and their successful scrapes still count).
 */
export function providerState({ lastHour, recentRounds }: ProviderEvidence): ProviderState {
  if (lastHour.canaries.scrapes + lastHour.traffic.scrapes === 0) return "unknown";
  const trafficFailuresCount = lastHour.trafficFailingAccounts >= STATUS_THRESHOLDS.minFailingAccounts;
  const trafficScrapes = trafficFailuresCount ? lastHour.traffic.scrapes : lastHour.traffic.succeeded;
  const scrapes = lastHour.canaries.scrapes + trafficScrapes;
  const succeeded = lastHour.canaries.succeeded + lastHour.traffic.succeeded;
  const rated = scrapes >= STATUS_THRESHOLDS.minScrapesForRate;
  const rate = rated ? succeeded / scrapes : 1;

  const lastRounds = recentRounds.slice(0, STATUS_THRESHOLDS.failedRoundsForDown);
  const failingRounds =
    lastRounds.length === STATUS_THRESHOLDS.failedRoundsForDown &&
    lastRounds.every((round) => round.canaries > 0 && round.failed === round.canaries);
  if (failingRounds || rate < STATUS_THRESHOLDS.downBelowRate) return "down";

  const latestRoundFailed = (recentRounds[0]?.failed ?? 0) > 0;
  if (latestRoundFailed || rate < STATUS_THRESHOLDS.degradedBelowRate) return "degraded";
  return "up";
}

/**
 * The whole service: up only when every provider has data and is up (a provider without data is not known to be up);
 * partial when none is degraded or down but some have no data; down when every provider with data is down; degraded
 * otherwise; unknown when none has data.
 */
export function serviceState(states: readonly ProviderState[]): ServiceStatus["status"] {
  const known = states.filter((state) => state !== "unknown");
  if (known.length === 0) return "unknown";
  if (known.every((state) => state === "down")) return "down";
  if (known.some((state) => state === "down" || state === "degraded")) return "degraded";
  return known.length === states.length ? "up" : "partial";
}
