/**
 * Response shapes of spec §2 shared by several scrapers, as zod schemas: the common fields (§2.1), the building blocks
 * providers compose their answers from (web sources, social posts, conversation), job records and the error body.
 * Each provider's own answer schema lives in its folder (src/scrapers/<id>/).
 */
import { z } from "@hono/zod-openapi";
import { ERROR_CODES } from "../errors";

/** The request id the reference's error examples show: the shape of a generated one (src/http/request-id.ts). */
export const EXAMPLE_REQUEST_ID = "req_3q2-7wEfXb0XQ9kVdZp1sA";

/** One evidence kind asked for but not kept, and why (docs/evidence.md). */
export const MissingEvidenceSchema = z
  .object({
    kind: z.enum(["screenshot", "html", "stream"]),
    reason: z.string().openapi({ example: "the screenshot could not be taken before the request's timeout" }),
  })
  .openapi("MissingEvidence");

/**
 * `evidence`: what was kept of the page and the stream that produced the answer, at unguessable URLs valid 24 hours.
 * Asked with the `X-Evidence` header, a batch item's `evidence` field, or the account's default; null when none was.
 */
export const EvidenceSchema = z
  .object({
    screenshot_url: z.string().nullable().openapi({
      description:
        "Full-page screenshot of the answer as the provider rendered it (PNG, or JPEG for a very long page); null when not asked or missing",
      example: "https://api.example.com/evidence/Jx3sQ0p9rM4vT7yB2nK6cH1dF8gL5wZa/screenshot.png",
    }),
    html_url: z
      .string()
      .nullable()
      .openapi({ description: "The page's HTML when the answer ended, scripts removed; null when not asked or missing" }),
    stream_url: z.string().nullable().openapi({
      description:
        "The exchanges the parser read, redacted, as a capture file (JSON) that replays to this answer; null when not asked or missing",
    }),
    captured_at: z.string().openapi({ format: "date-time", example: "2026-11-28T09:26:53.589+00:00" }),
    expires_at: z.string().openapi({ format: "date-time", description: "When the URLs stop answering (24 hours after capture)" }),
    missing: z.array(MissingEvidenceSchema).openapi({ description: "Kinds asked for but not kept, with why; the answer is unaffected" }),
  })
  .openapi("Evidence");

export const ErrorBodySchema = z
  .object({
    detail: z.string().openapi({ example: "prompt: must be 1 to 4000 characters and not blank" }),
    code: z.enum(ERROR_CODES).openapi({
      // The errors guide served by every deployment (src/http/docs-guides.json) lists them all.
      description: "Stable machine-readable error code (every one: /docs/guides/errors): branch on this, not on the wording of `detail`",
      example: "invalid_parameter",
    }),
    request_id: z.string().openapi({
      description:
        "Id of the request, the same as its `X-Request-Id` response header: the caller's own `X-Request-Id` when well-formed, " +
        "else generated. Quote it when asking support about this error",
      example: EXAMPLE_REQUEST_ID,
    }),
    evidence: EvidenceSchema.optional().openapi({
      description: "A failed scrape's page (screenshot and HTML), when the account keeps failure evidence",
    }),
  })
  .openapi("Error");

/** `served_by.session`: whether the browser carried a provider account's signed-in session (docs/real-sites.md). */
export const SERVED_BY_SESSIONS = ["signed_in", "anonymous"] as const;

/**
 * Who produced an answer (not a field of spec §2.1; added beside them): what the browser layer knew of the page, the
 * attempt and the provider's declarations. A response-cache entry stores it with the answer, so a cache hit and a
 * coalesced follower say who produced the answer they carry (see `ServedBySchema`).
 */
export const ScrapeProvenanceSchema = z.object({
  country: z.string().openapi({ description: "Country the browser session was pinned to (its pool's country)", example: "US" }),
  session: z
    .enum(SERVED_BY_SESSIONS)
    .openapi({ description: "Whether the page was signed in to a provider account", example: "anonymous" }),
  attempt: z.number().int().min(1).openapi({
    description: "Number of the attempt that produced the answer: 1 for a synchronous scrape, the job's attempt for a job",
    example: 1,
  }),
  hot_page: z.boolean().openapi({ description: "true if the scrape started from a hot page (the provider's page already loaded)" }),
  model_label: z.string().nullable().openapi({
    description: "The model label the provider's page or stream showed; null where the site shows none",
    example: "grok-4-fast",
  }),
  scraper_version: z
    .string()
    .openapi({ description: "Version of the scraper's navigation and parser, declared per provider", example: "grok/2026.11.1" }),
});
export type ScrapeProvenance = z.infer<typeof ScrapeProvenanceSchema>;

/**
 * `served_by` on every 200: the provenance of the scrape that produced the answer. A cache hit or a request answered by
 * an identical request's scrape (`cached: true`) carries the provenance of that original scrape, with `from_cache: true`.
 */
export const ServedBySchema = ScrapeProvenanceSchema.extend({
  from_cache: z.boolean().openapi({
    description: "true when the answer came from the cache or from an identical request's scrape: the other fields describe that scrape",
  }),
}).openapi("ServedBy");
export type ServedBy = z.infer<typeof ServedBySchema>;

/** §2.1: fields every scraper's 200 response carries, and `served_by` and `evidence` beside them. */
export const CommonScrapeFieldsSchema = z.object({
  scraper: z.string().openapi({ description: "Identifier of the scraper that handled the request", example: "grok" }),
  status: z.literal("done"),
  job_id: z.string().openapi({ description: "Unique identifier of the job (UUIDv4)" }),
  prompt: z.string(),
  country: z.string().openapi({ description: "Country the request was routed through", example: "US" }),
  result: z.string().openapi({ description: "Plain-text reply" }),
  result_markdown: z.string().nullable().openapi({ description: "Markdown-formatted reply" }),
  credits_used: z.number().int().openapi({ example: 3 }),
  elapsed_ms: z.number().openapi({ description: "End-to-end duration in milliseconds" }),
  cached: z.boolean().openapi({ description: "true if served from cache" }),
  markdown_url: z.string().nullable().openapi({ description: "Hosted markdown of this response; expires after 24 hours" }),
  served_by: ServedBySchema,
  evidence: EvidenceSchema.nullable(),
});
export type CommonScrapeFields = z.infer<typeof CommonScrapeFieldsSchema>;

/** §2.3 */
export const WebSourceSchema = z
  .object({
    title: z.string(),
    url: z.string().openapi({ format: "uri" }),
    preview: z.string().nullable(),
  })
  .openapi("WebSource");
export type WebSource = z.infer<typeof WebSourceSchema>;

/** §2.4 */
export const SocialResultSchema = z
  .object({
    post_id: z.string(),
    user_name: z.string().openapi({ description: "Author handle without the leading @" }),
    name: z.string(),
    text: z.string(),
    view_count: z.number().int(),
    profile_image_url: z.string().nullable(),
    create_time: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("SocialResult");
export type SocialResult = z.infer<typeof SocialResultSchema>;

/** §2.5 */
export const ConversationSchema = z
  .object({
    conversation_id: z.string(),
    title: z.string().nullable(),
    temporary: z.boolean(),
    create_time: z.string().nullable().openapi({ format: "date-time" }),
    modify_time: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("Conversation");
export type Conversation = z.infer<typeof ConversationSchema>;

/** §2.7 */
export const JobSubmittedSchema = z
  .object({ job_id: z.string().openapi({ format: "uuid" }), status: z.literal("pending") })
  .openapi("JobSubmitted");

export const JobStatusSchema = z
  .object({
    job_id: z.string().openapi({ format: "uuid" }),
    status: z.enum(["pending", "done", "failed"]),
    scraper: z.string(),
    result: z.record(z.string(), z.unknown()).optional().openapi({ description: "The full scrape response; present when done" }),
    error: z.string().optional().openapi({ description: "Present when failed" }),
    evidence: EvidenceSchema.optional().openapi({
      description:
        "Present when failed and the account keeps failure evidence: the page's screenshot and HTML when the last attempt failed",
    }),
    created_at: z.string().openapi({ format: "date-time" }),
    completed_at: z.string().nullable().openapi({ format: "date-time", description: "null while pending" }),
    attempts: z.number().int().openapi({ description: "Scrape attempts started so far (at most 4)" }),
  })
  .openapi("JobStatus");
