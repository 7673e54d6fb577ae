/**
 * A provider session as operators hand it over: Playwright's storage-state JSON (`context.storageState()`), that is
 * cookies plus localStorage per origin. The same shape is what a signed-in browser exports with one Playwright call,
 * what the replicas' sign-in produces, and what the scrape's page gets. Only a masked summary of it is ever shown.
 */
import { z } from "@hono/zod-openapi";
import { sha256Hex } from "../util/crypto";
import { isoTimestamp } from "../util/time";

const MAX_COOKIES = 300;
const MAX_ORIGINS = 50;
const MAX_ITEMS_PER_ORIGIN = 500;
/** The whole state, serialised: a D1 row holds it encrypted, and a browser session never needs more. */
export const MAX_STATE_BYTES = 512 * 1024;

const text = (max: number, what: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .max(max, { error: `must be at most ${max} ${what}` });

const CookieSchema = z
  .strictObject({
    name: text(4096, "characters").min(1, { error: "must not be empty" }),
    value: text(16_384, "characters"),
    domain: text(255, "characters")
      .optional()
      .openapi({ description: "Absent: the cookie is set for the provider's origin of each scrape (a replica, or the real site)" }),
    path: text(1024, "characters").optional(),
    expires: z
      .number({ error: "must be seconds since the epoch, or -1 for a session cookie" })
      .optional()
      .openapi({ description: "Seconds since the epoch; -1 or absent for a session cookie" }),
    httpOnly: z.boolean({ error: "must be a boolean" }).optional(),
    secure: z.boolean({ error: "must be a boolean" }).optional(),
    sameSite: z.enum(["Strict", "Lax", "None"], { error: "must be Strict, Lax or None" }).optional(),
    // Newer Playwright versions export it; a scrape's page does not partition cookies, so it is accepted and not used.
    partitionKey: z.string().optional(),
  })
  .openapi("SessionCookie");

const OriginStorageSchema = z
  .strictObject({
    origin: z
      .url({ error: "must be an origin such as https://www.amazon.com" })
      .transform((url) => new URL(url).origin)
      .openapi({ example: "https://grok.com" }),
    localStorage: z
      .array(z.strictObject({ name: text(1024, "characters"), value: text(256 * 1024, "characters") }))
      .max(MAX_ITEMS_PER_ORIGIN, { error: `must hold at most ${MAX_ITEMS_PER_ORIGIN} items` }),
  })
  .openapi("SessionOriginStorage");

export const StorageStateSchema = z
  .strictObject({
    cookies: z
      .array(CookieSchema)
      .max(MAX_COOKIES, { error: `must hold at most ${MAX_COOKIES} cookies` })
      .default([]),
    origins: z
      .array(OriginStorageSchema)
      .max(MAX_ORIGINS, { error: `must hold at most ${MAX_ORIGINS} origins` })
      .default([]),
  })
  .refine((state) => state.cookies.length > 0 || state.origins.some((origin) => origin.localStorage.length > 0), {
    error: "must hold at least one cookie or one localStorage item",
  })
  .refine((state) => new TextEncoder().encode(JSON.stringify(state)).byteLength <= MAX_STATE_BYTES, {
    error: `must be at most ${MAX_STATE_BYTES / 1024} KiB as JSON`,
  })
  .openapi("StorageState", {
    description:
      "A signed-in browser session in Playwright's storage-state format (`await context.storageState()`): cookies and localStorage per origin.",
  });

export type StorageState = z.output<typeof StorageStateSchema>;
export type SessionCookie = StorageState["cookies"][number];

/** What the operator API shows of a stored session: names, scopes and expiry, never a whole value. */
export const SessionSummarySchema = z
  .object({
    cookies: z.array(
      z.object({
        name: z.string(),
        domain: z.string().nullable(),
        path: z.string(),
        expires_at: z.string().nullable().openapi({ format: "date-time", description: "null for a session cookie" }),
        secure: z.boolean(),
        http_only: z.boolean(),
        value: z.string().openapi({
          description: "Masked: `…` and the last 4 characters of a value of 16 or more characters, `…` alone otherwise",
          example: "…x9Qa",
        }),
      }),
    ),
    local_storage: z.array(z.object({ origin: z.string(), keys: z.array(z.string()) })),
    expires_at: z
      .string()
      .nullable()
      .openapi({ format: "date-time", description: "The earliest expiry among the cookies that have one (past or future)" }),
    fingerprint: z
      .string()
      .openapi({ description: "First 16 hex digits of the session's SHA-256: tells stored sessions apart without showing them" }),
  })
  .openapi("SessionSummary");
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

const MASK_VISIBLE_FROM = 16;

function maskedValue(value: string): string {
  return value.length >= MASK_VISIBLE_FROM ? `…${value.slice(-4)}` : "…";
}

function cookieExpiry(cookie: SessionCookie): number | null {
  return cookie.expires !== undefined && cookie.expires > 0 ? cookie.expires * 1000 : null;
}

export async function summarizeSession(state: StorageState): Promise<SessionSummary> {
  const expiries = state.cookies.map(cookieExpiry).filter((expiry) => expiry !== null);
  return {
    cookies: state.cookies.map((cookie) => {
      const expiry = cookieExpiry(cookie);
      return {
        name: cookie.name,
        domain: cookie.domain ?? null,
        path: cookie.path ?? "/",
        expires_at: expiry === null ? null : isoTimestamp(expiry),
        secure: cookie.secure ?? false,
        http_only: cookie.httpOnly ?? false,
        value: maskedValue(cookie.value),
      };
    }),
    local_storage: state.origins.map((origin) => ({ origin: origin.origin, keys: origin.localStorage.map((item) => item.name) })),
    expires_at: expiries.length === 0 ? null : isoTimestamp(Math.min(...expiries)),
    fingerprint: (await sha256Hex(JSON.stringify(state))).slice(0, 16),
  };
}
