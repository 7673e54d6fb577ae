/**
 * Prompts with quotes, backticks, `</script>`, newlines and non-ASCII text reach every provider verbatim: the request
 * each replica received carries them unchanged (the scrapers type or send the prompt as data, never as code).
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { SCRAPER_IDS } from "../../src/scrapers/registry";
import { api, createTestAccount, query, replicaControl } from "../support/workers/helpers";

const HOSTILE_PROMPT = `Quote "double" and 'single', a \`tick\` and $(whoami); </script><script>document.title="pwned"</script>
second line: ✓ ünïcödé 🚀`;

/** Every string inside a recorded request (JSON bodies, form fields, query strings), decoded as far as it goes. */
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") {
    const found = [value];
    try {
      const decoded = decodeURIComponent(value.replace(/\+/g, " "));
      if (decoded !== value) found.push(decoded, ...stringsOf(tryJson(decoded)));
    } catch {
      // not percent-encoded
    }
    const parsed = tryJson(value);
    if (parsed !== undefined) found.push(...stringsOf(parsed));
    return found;
  }
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(stringsOf);
  return [];
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function requestsOf(provider: string): Promise<unknown[]> {
  const response = await fetch(`${env.REPLICA_URL}/__control/state`);
  const state = (await response.json()) as { providers: Record<string, { requests: unknown[] }> };
  return state.providers[provider]?.requests ?? [];
}

afterEach(async () => {
  await replicaControl("reset");
});

describe("hostile prompts reach every provider verbatim", () => {
  for (const scraper of SCRAPER_IDS) {
    it(scraper, async () => {
      const own = await createTestAccount(3);
      const response = await api(`/scrapers/${scraper}?${query({ prompt: HOSTILE_PROMPT, bypass_cache: "true" })}`, { apiKey: own.apiKey });
      const body = (await response.json()) as { prompt?: string; detail?: string };
      expect(response.status, JSON.stringify(body)).toBe(200);
      expect(body.prompt).toBe(HOSTILE_PROMPT);
      const sent = (await requestsOf(scraper)).flatMap(stringsOf);
      // ChatGPT-style composers keep the text; a contenteditable may turn the newline into a paragraph break, which
      // the page sends back as "\n": the exact prompt must be among the strings the provider received.
      expect(sent, `${scraper} did not receive the prompt verbatim`).toContain(HOSTILE_PROMPT);
    });
  }
});
