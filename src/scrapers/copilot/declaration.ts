/** Copilot's declarations (the productivity assistant, spec §2.6, §4.3): parameters, answer schema, domains. */
import { z } from "@hono/zod-openapi";
import { modeParam } from "../../params/common-params";

/** API modes; each is also the `send.mode` value the page puts on the wire (copilot.md §1). */
const COPILOT_MODES = ["search", "smart", "chat", "reasoning", "study"] as const;
const CopilotModeSchema = z.enum(COPILOT_MODES);
export type CopilotMode = z.infer<typeof CopilotModeSchema>;

export const COPILOT_PARAMS = {
  mode: modeParam(
    COPILOT_MODES,
    "search",
    "search (web-grounded, with citations), smart (balanced), chat (quick reply), reasoning (Think Deeper: slower) or study (structured guide)",
  ),
};

const CopilotCitationSchema = z
  .object({
    title: z.string().openapi({ description: "Title of the cited page (its hostname when Copilot gave none)" }),
    url: z.string().openapi({ format: "uri" }),
  })
  .openapi("CopilotCitation");
export type CopilotCitation = z.infer<typeof CopilotCitationSchema>;

/** What the Copilot parser extracts from the chat exchange. */
const CopilotParsedAnswerSchema = z.object({
  result: z.string(),
  result_markdown: z.string().nullable(),
  citations: z.array(CopilotCitationSchema).openapi({ description: "Pages Copilot cited, in order, de-duplicated by url" }),
  links: z
    .array(z.string())
    .openapi({ description: "Outbound http(s) URLs of the answer: its markdown links, then the citation urls; de-duplicated" }),
});
export type CopilotParsedAnswer = z.infer<typeof CopilotParsedAnswerSchema>;

/** The scraper's answer: the parsed fields plus the mode used. */
export const CopilotAnswerSchema = CopilotParsedAnswerSchema.extend({
  mode: CopilotModeSchema.openapi({ description: "Mode used (verified in the request the page sent)" }),
});

/** Hosts copilot.microsoft.com's page and calls use (the page and its API, sign-in redirects, Turnstile). */
export const COPILOT_DOMAINS = ["copilot.microsoft.com", "login.live.com", "login.microsoftonline.com", "challenges.cloudflare.com"];
