/**
 * The response cache (KV). A key covers the account, the scraper and every parameter that changes the answer, never
 * the transport ones (timeout, bypass_cache, api_key). Only successful scrapes are stored; an entry holds the
 * provider-derived part of the response and who produced it (`served_by`, src/pipeline/served-by.ts), and each hit gets
 * its own job id, timing and hosted markdown. Keys are `v3:` since entries carry `served_by`: older ones are not read.
 *
 * Entries belong to the account that paid for them. A cache shared between customers answers "has anyone asked this
 * exact prompt in the last hour?" to every other customer (`cached: true` and a fast reply), and prompts are business
 * information (product research, campaign wording, names). docs/limits.md has the reasoning.
 */
import { answerDefiningParams, type ScrapeParams } from "../params/common-params";
import type { ScraperId } from "../scrapers/registry";
import { sha256Hex } from "../util/crypto";
import { logLine, type LogSubject } from "../util/log-line";

/** KV refuses TTLs below 60 s. */
const MINIMUM_TTL_SECONDS = 60;

export async function responseCacheKey(scraper: ScraperId, params: ScrapeParams, accountId: string): Promise<string> {
  const defining = answerDefiningParams(params);
  const canonical = Object.keys(defining)
    .sort()
    .map((name) => [name, defining[name]]);
  // The account is hashed with the parameters: a key listed in KV says neither who asked nor what.
  return `v3:${scraper}:${await sha256Hex(JSON.stringify([accountId, canonical]))}`;
}

/**
 * Entries this isolate is writing, by key, until KV confirms the write. A synchronous answer goes out before its entry
 * is written (the write finishes in `waitUntil`): an identical request this isolate serves meanwhile reads it here
 * instead of missing the cache and scraping again.
 */
const writesInFlight = new Map<string, Record<string, unknown>>();

export async function readCachedAnswer(kv: KVNamespace, key: string): Promise<Record<string, unknown> | null> {
  return writesInFlight.get(key) ?? kv.get<Record<string, unknown>>(key, "json");
}

/** Stores `answer` under `key`. Best effort: a failed write is logged (it only costs a later scrape), never thrown. */
export async function writeCachedAnswer(
  kv: KVNamespace,
  key: string,
  answer: Record<string, unknown>,
  ttlSeconds: number,
  logSubject?: LogSubject,
): Promise<void> {
  writesInFlight.set(key, answer);
  try {
    await kv.put(key, JSON.stringify(answer), { expirationTtl: Math.max(MINIMUM_TTL_SECONDS, Math.floor(ttlSeconds)) });
  } catch (cause) {
    console.error(logLine(logSubject, "could not write the response cache entry; the next identical request scrapes again"), cause);
  } finally {
    if (writesInFlight.get(key) === answer) writesInFlight.delete(key);
  }
}
