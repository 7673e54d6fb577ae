/**
 * How a scrape uses provider accounts. When the provider has active accounts for the request's marketplace, the scrape
 * runs with the next one in rotation, and its outcome is recorded on the account. A login wall takes that account out
 * of rotation (`needs_attention`) and the scrape is tried once more: on another account, or signed out where the
 * provider answers signed-out sessions. Without accounts (or without the secret) scrapes run signed out, as before.
 */
import { BrowserUnreachableError } from "../errors";
import type { CommonParams } from "../params/common-params";
import type { AnyProvider } from "../scrapers/registry";
import { classifyFailure } from "../status/failure-reason";
import { logLine, type LogSubject } from "../util/log-line";
import { sessionCipherOf } from "./session-cipher";
import type { StorageState } from "./storage-state";
import { type ClaimedAccount, claimProviderAccount, recordAccountFailure, recordAccountSuccess } from "./store";

interface AccountScrape {
  provider: AnyProvider;
  params: CommonParams;
  /** The caller's deadline: no second try after it fired. */
  signal: AbortSignal;
  /** Who the scrape's log lines are about (src/util/log-line.ts). */
  logSubject?: LogSubject;
}

/** Runs one attempt of a scrape in a fresh page carrying `session` (null: signed out). */
type ScrapeAttempt<T> = (session: StorageState | null) => Promise<T>;

/** The marketplace an account must belong to for this request ('' when the provider's sessions serve every country). */
function accountMarketplaceOf(provider: AnyProvider, params: CommonParams): string {
  return provider.accounts?.marketplaceOf?.(params) ?? "";
}

export async function withProviderAccount<T>(env: Env, scrape: AccountScrape, attempt: ScrapeAttempt<T>): Promise<T> {
  const cipher = await sessionCipherOf(env);
  if (cipher === null) return attempt(null);
  const { provider } = scrape;
  const marketplace = accountMarketplaceOf(provider, scrape.params);
  const { logSubject } = scrape;
  const first = await claimQuietly(claimProviderAccount(env.DB, cipher, provider.id, marketplace), logSubject);
  if (first === null) return attempt(null);
  try {
    return await attemptWith(env, first, attempt, logSubject);
  } catch (error) {
    if (classifyFailure(error)?.reason !== "login_wall" || scrape.signal.aborted) throw error;
    const second = await claimQuietly(claimProviderAccount(env.DB, cipher, provider.id, marketplace, first.id), logSubject);
    if (second !== null) return attemptWith(env, second, attempt, logSubject);
    if (provider.accounts?.anonymousFallback === false) throw error;
    return attempt(null);
  }
}

async function attemptWith<T>(
  env: Env,
  account: ClaimedAccount,
  attempt: ScrapeAttempt<T>,
  logSubject: LogSubject | undefined,
): Promise<T> {
  let result: T;
  try {
    result = await attempt(account.session);
  } catch (error) {
    const failure = classifyFailure(error);
    // a capacity refusal (queue full, pool warming up) or an unreachable browser service says nothing about the account
    const aboutTheSite = failure !== null && !(error instanceof BrowserUnreachableError);
    if (aboutTheSite) await quietly(recordAccountFailure(env.DB, account.id, failure.reason), logSubject);
    throw error;
  }
  await quietly(recordAccountSuccess(env.DB, account.id), logSubject);
  return result;
}

/** An account store that cannot be read (a migration not applied yet) leaves scrapes signed out rather than failing them. */
async function claimQuietly(claim: Promise<ClaimedAccount | null>, logSubject: LogSubject | undefined): Promise<ClaimedAccount | null> {
  try {
    return await claim;
  } catch (cause) {
    console.error(logLine(logSubject, "could not claim a provider account; scraping signed out"), cause);
    return null;
  }
}

/** Bookkeeping never turns a scrape's own outcome into another error. */
async function quietly(write: Promise<void>, logSubject: LogSubject | undefined): Promise<void> {
  try {
    await write;
  } catch (cause) {
    console.error(logLine(logSubject, "could not record a provider account's outcome"), cause);
  }
}
