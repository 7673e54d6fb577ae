/**
 * Which site each scraper of the local stack drives (`npm start`), from the environment:
 * - by default, every provider's replica (`http://127.0.0.1:8788/<id>`);
 * - `LIVE=1`: no origin at all, so every scraper drives the real site, exactly as a deployment without overrides does;
 * - `PROVIDER_ORIGIN_<ID>=<url>` overrides that one provider in either mode (Amazon's takes a `{domain}` template);
 *   set but empty (`PROVIDER_ORIGIN_GROK=`), it sends that one provider to its real site while the others stay on
 *   their replicas.
 * Pure, so the unit tests check the configuration without starting anything.
 */

export interface ReplicaOrigin {
  id: string;
  /** The replica's origin override for this provider. */
  replicaOrigin: string;
}

export interface LocalOrigins {
  live: boolean;
  /** `PROVIDER_ORIGIN_<ID>` → value, for the providers that do not drive their real site. */
  overrides: Record<string, string>;
  /** Providers that drive their real site. */
  realSites: string[];
  /** `PROVIDER_ORIGIN_*` variables that name no provider (a typo, most likely). */
  unknownVariables: string[];
}

const TRUE_WORDS = new Set(["1", "true", "yes", "on"]);

export function originVariable(id: string): string {
  return `PROVIDER_ORIGIN_${id.toUpperCase()}`;
}

/** Whether `LIVE` asks for the real sites. */
export function isLiveMode(environment: Readonly<Record<string, string | undefined>>): boolean {
  return TRUE_WORDS.has((environment.LIVE ?? "").trim().toLowerCase());
}

export function localOrigins(providers: readonly ReplicaOrigin[], environment: Readonly<Record<string, string | undefined>>): LocalOrigins {
  const live = isLiveMode(environment);
  const overrides: Record<string, string> = {};
  const realSites: string[] = [];
  for (const provider of providers) {
    const variable = originVariable(provider.id);
    const given = environment[variable];
    if (given !== undefined) {
      const origin = given.trim();
      if (origin === "") realSites.push(provider.id);
      else overrides[variable] = checkedOrigin(variable, origin);
    } else if (live) {
      realSites.push(provider.id);
    } else {
      overrides[variable] = provider.replicaOrigin;
    }
  }
  const known = new Set(providers.map((provider) => originVariable(provider.id)));
  const unknownVariables = Object.keys(environment)
    .filter((name) => name.startsWith("PROVIDER_ORIGIN_") && !known.has(name))
    .sort();
  return { live, overrides, realSites, unknownVariables };
}

/** An http(s) URL, placeholders such as Amazon's `{domain}` allowed; anything else stops the start with a clear message. */
function checkedOrigin(variable: string, origin: string): string {
  let url: URL;
  try {
    url = new URL(origin.replace(/\{(\w+)\}/g, "placeholder"));
  } catch {
    throw new Error(`${variable} must be an http(s) URL such as http://127.0.0.1:8788/grok, got ${JSON.stringify(origin)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`${variable} must be an http(s) URL, got ${JSON.stringify(origin)}`);
  return origin.replace(/\/+$/, "");
}
