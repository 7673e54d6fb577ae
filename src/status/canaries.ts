/**
 * Canaries: one cheap prompt per provider and configured country, scraped through the same pipeline as customers
 * (`runScrape`, fresh, no cache), with no account, so no customer is charged and no cache entry is read or written.
 * Each outcome (latency, and the failure category when it failed) is recorded for the status page.
 */
import { isCommonParams, type ScrapeParams } from "../params/common-params";
import { runScrape } from "../pipeline/pipeline";
import { allProviders, type AnyProvider, querySchemaOf, type ScraperId } from "../scrapers/registry";
import { logLine, serviceSubject } from "../util/log-line";
import { configuredBaseUrl } from "../util/public-base-url";
import { classifyFailure } from "./failure-reason";
import { recordScrapeOutcome } from "./outcome-log";

/** A question every assistant answers in a sentence: cheap for the provider, and the answer is never empty. */
export const CANARY_PROMPT = "What is the capital of France?";
/** Providers whose prompt is not a question: Rufus takes a shopping query. */
const CANARY_PROMPTS: Partial<Record<ScraperId, string>> = { amazon_rufus: "usb c charging cable" };
/** Canaries running at once: enough to finish a round in seconds, few enough to leave the pool to customers. */
const CANARY_CONCURRENCY = 2;
const DEFAULT_TIMEOUT_SECONDS = 120;

interface CanaryConfig {
  /** Countries every provider is checked from (a provider that does not serve one is skipped there). */
  countries: string[];
  providers: AnyProvider[];
  timeoutSeconds: number;
}

interface Canary {
  provider: AnyProvider;
  params: ScrapeParams;
}

interface CanaryResult {
  provider: string;
  country: string;
  ok: boolean;
  latencyMs: number;
  /** The failure category; null when it answered, or when the failure was a capacity refusal (not recorded). */
  reason: string | null;
}

function listOf(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/**
 * The canary settings of the deployment (wrangler.toml [vars]): CANARY_COUNTRIES (comma-separated, empty = canaries
 * off), CANARY_PROVIDERS (comma-separated ids, empty = every provider), CANARY_TIMEOUT_SECONDS (10 to 600).
 */
export function canaryConfig(env: Env): CanaryConfig {
  const countries = [...new Set(listOf(env.CANARY_COUNTRIES).map((country) => country.toUpperCase()))];
  const wanted = new Set(listOf(env.CANARY_PROVIDERS));
  const providers = allProviders().filter((provider) => wanted.size === 0 || wanted.has(provider.id));
  for (const id of wanted)
    if (!providers.some((provider) => provider.id === id))
      console.warn(logLine(serviceSubject("canaries"), `CANARY_PROVIDERS: unknown provider ${id}`));
  const timeout = Number(env.CANARY_TIMEOUT_SECONDS);
  const timeoutSeconds = Number.isFinite(timeout) && timeout >= 10 && timeout <= 600 ? timeout : DEFAULT_TIMEOUT_SECONDS;
  return { countries, providers, timeoutSeconds };
}

/**
 * The canaries of a round: every configured provider in every configured country it serves. Parameters are validated
 * by the provider's own query schema, exactly as a customer's, so its defaults (mode, web search…) apply.
 */
export function plannedCanaries(config: CanaryConfig): Canary[] {
  return config.providers.flatMap((provider) =>
    config.countries.flatMap((country): Canary[] => {
      const parsed = querySchemaOf(provider).safeParse({
        prompt: CANARY_PROMPTS[provider.id] ?? CANARY_PROMPT,
        country,
        bypass_cache: "true",
        timeout: String(config.timeoutSeconds),
      });
      // A country the provider does not serve (grok in JP) or a code that is no country: nothing to check there.
      if (!parsed.success || !isCommonParams(parsed.data)) return [];
      return [{ provider, params: parsed.data }];
    }),
  );
}

async function runCanary(env: Env, { provider, params }: Canary, roundAt: number): Promise<CanaryResult> {
  const startedAt = Date.now();
  const request = {
    scraper: provider.id,
    params,
    jobId: crypto.randomUUID(),
    baseUrl: configuredBaseUrl(env) ?? "http://localhost",
    logSubject: serviceSubject(`canary ${provider.id} ${params.country}`),
    startedAt,
    // the service's own scrape: a failing canary keeps its page for the operator (src/evidence/failure-evidence.ts)
    evidence: { kinds: [], onFailure: true },
  };
  let failure: { error: unknown } | null = null;
  try {
    await runScrape(env, request, params.timeout);
  } catch (error) {
    failure = { error };
  }
  const latencyMs = Date.now() - startedAt;
  const outcome = { provider: provider.id, country: params.country, source: "canary", latencyMs, roundAt } as const;
  const result: CanaryResult = {
    provider: provider.id,
    country: params.country,
    ok: failure === null,
    latencyMs,
    reason: failure === null ? null : (classifyFailure(failure.error)?.reason ?? null),
  };
  try {
    await recordScrapeOutcome(env.DB, failure === null ? { ...outcome, ok: true } : { ...outcome, ok: false, error: failure.error });
  } catch (cause) {
    console.error(logLine(request.logSubject, "could not record a canary outcome"), cause);
  }
  console.log(
    logLine(
      request.logSubject,
      JSON.stringify({
        event: "canary",
        provider: result.provider,
        country: result.country,
        ok: result.ok,
        reason: result.reason,
        latency_ms: latencyMs,
      }),
    ),
  );
  return result;
}

/** Runs one round: every planned canary, CANARY_CONCURRENCY at a time. A failing canary never stops the others. */
export async function runCanaryRound(env: Env, roundAt = Date.now()): Promise<CanaryResult[]> {
  const queue = plannedCanaries(canaryConfig(env));
  const results: CanaryResult[] = [];
  const worker = async () => {
    for (let canary = queue.shift(); canary !== undefined; canary = queue.shift()) results.push(await runCanary(env, canary, roundAt));
  };
  await Promise.all(Array.from({ length: Math.min(CANARY_CONCURRENCY, queue.length) }, worker));
  return results;
}
