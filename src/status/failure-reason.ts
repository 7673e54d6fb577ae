/**
 * Why a scrape failed, as the status page reports it: one category derived from the error's class (and, for an
 * upstream failure, from the client-safe `detail` our scrapers write), never from anything the provider sent.
 */
import { ScraperDriftError, ScrapeTimeoutError, ServiceError, UpstreamError } from "../errors";

export const FAILURE_REASONS = ["drift", "challenge", "login_wall", "timeout", "other"] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** Words for people (the HTML page); the JSON carries the codes above. */
export const FAILURE_REASON_LABELS: Readonly<Record<FailureReason, string>> = {
  drift: "Page layout changed",
  challenge: "Anti-bot challenge",
  login_wall: "Login wall",
  timeout: "Timed out",
  other: "Provider or browser error",
};

export interface ClassifiedFailure {
  reason: FailureReason;
  /** The stable drift code (`grok.composer_missing`) when the reason is drift. */
  driftCode: string | null;
}

/*
 * Every scraper states a challenge and a login wall in its client-safe detail, written next to the throw in
 * src/scrapers/<id>/: "… answered with an anti-bot challenge …", "… a robot check (CAPTCHA) …", "… its unusual-traffic
 * check (CAPTCHA) …"; "… requires a login …", "… asked the browser session to sign in …", "… (login wall)". The
 * provider's own words only ever go to `cause`, which is not read here. test/e2e/canaries.test.ts plays both faults
 * on every replica, so a scraper whose wording stops matching fails there.
 */
const CHALLENGE_DETAIL = /\banti-bot challenge\b|\brobot check\b|\bunusual-traffic check\b|\(CAPTCHA\)/i;
const LOGIN_WALL_DETAIL = /\blogin wall\b|\brequires a (?:login|signed-in)\b|\bsign in\b|\bsigned-in session\b/i;

/**
 * Our own capacity, not the provider: 429 (the country's scraper queue is full) and 503 (the pool is warming up, or
 * every browser session of the service is in use) are refusals before any page of the provider was opened.
 */
const CAPACITY_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** The category of a failed scrape, or null when the failure says nothing about the provider (a capacity refusal). */
export function classifyFailure(error: unknown): ClassifiedFailure | null {
  if (error instanceof ServiceError && CAPACITY_STATUSES.has(error.status)) return null;
  if (error instanceof ScraperDriftError) return { reason: "drift", driftCode: error.driftCode };
  if (error instanceof ScrapeTimeoutError) return { reason: "timeout", driftCode: null };
  if (error instanceof UpstreamError) {
    if (error.reason === "challenge") return { reason: "challenge", driftCode: null };
    if (error.reason === "login_wall") return { reason: "login_wall", driftCode: null };
    if (CHALLENGE_DETAIL.test(error.detail)) return { reason: "challenge", driftCode: null };
    if (LOGIN_WALL_DETAIL.test(error.detail)) return { reason: "login_wall", driftCode: null };
  }
  return { reason: "other", driftCode: null };
}
