/**
 * The status page's headline, from the data only: it claims "All providers are up" only when every provider has data
 * and is up, and says how many have no data rather than counting them as up (issue 36).
 */
import type { ProviderState, ServiceStatus } from "../status/status-schema";

export interface StatusHeadline {
  title: string;
  /** The counts behind the title, when the title alone does not give them. */
  detail: string | null;
}

type StateCounts = Readonly<Record<ProviderState, number>>;

function countStates(status: ServiceStatus): StateCounts {
  const counts: Record<ProviderState, number> = { up: 0, degraded: 0, down: 0, unknown: 0 };
  for (const provider of status.providers) counts[provider.status] += 1;
  return counts;
}

function providers(count: number): string {
  return count === 1 ? "1 provider" : `${count} providers`;
}

/** "Of 7 providers: 1 down, 1 degraded, 3 up, 2 with no data in the last hour." (states with none left out) */
function breakdown(counts: StateCounts, total: number): string {
  const parts = [
    counts.down > 0 ? `${counts.down} down` : null,
    counts.degraded > 0 ? `${counts.degraded} degraded` : null,
    counts.up > 0 ? `${counts.up} up` : null,
    counts.unknown > 0 ? `${counts.unknown} with no data in the last hour` : null,
  ].filter((part) => part !== null);
  return `Of ${providers(total)}: ${parts.join(", ")}.`;
}

export function statusHeadline(status: ServiceStatus): StatusHeadline {
  const counts = countStates(status);
  const total = status.providers.length;
  switch (status.status) {
    case "unknown":
      return status.history_since === null
        ? {
            title: "No data yet",
            detail: "No scrape of any provider is on record yet: the figures appear with the first canary round or customer scrape.",
          }
        : { title: "No scrapes in the last hour", detail: `None of the ${providers(total)} was scraped in the last hour.` };
    case "up":
      return { title: "All providers are up", detail: null };
    case "partial":
      return {
        title: `${counts.unknown} of ${providers(total)} ${counts.unknown === 1 ? "has" : "have"} no data in the last hour`,
        detail: `The other ${counts.up} ${counts.up === 1 ? "is" : "are"} up.`,
      };
    case "degraded":
      return { title: "Some providers are degraded or down", detail: breakdown(counts, total) };
    case "down":
      return counts.unknown === 0
        ? { title: "All providers are down", detail: null }
        : { title: "Every provider with data is down", detail: breakdown(counts, total) };
  }
}
