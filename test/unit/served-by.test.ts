/**
 * `served_by` (src/pipeline/served-by.ts): what a fresh scrape states from the lease's report, the attempt and the
 * provider's declarations, and how the provenance survives the trip through the cache (or a coalesced scrape).
 */
import { describe, expect, it } from "vitest";
import { provenanceOf, readStoredForm, servedByOf, storedFormOf } from "../../src/pipeline/served-by";
import type { ScrapeAnswer } from "../../src/pipeline/scrape-answer";
import { PROVIDERS } from "../../src/scrapers/provider-list";

function requireProvider(id: string): (typeof PROVIDERS)[number] {
  const provider = PROVIDERS.find((candidate) => candidate.id === id);
  if (provider === undefined) throw new Error(`no provider ${id}`);
  return provider;
}

const GROK_ANSWER: ScrapeAnswer = { result: "An answer", result_markdown: null, llm_model: "grok-4-fast", mode: "MODEL_MODE_AUTO" };
const acceptAnswer = (fields: Record<string, unknown>): ScrapeAnswer => ({ ...fields, result: "An answer", result_markdown: null });

describe("served_by", () => {
  it("every provider declares its version as <id>/<year>.<month>.<n>", () => {
    for (const provider of PROVIDERS) {
      expect(provider.version, provider.id).toMatch(new RegExp(`^${provider.id}/20\\d\\d\\.(?:[1-9]|1[0-2])\\.[1-9]\\d*$`));
    }
  });

  it("a fresh scrape states the lease's country, session and hot page, its attempt, the model label and the version", () => {
    const grok = requireProvider("grok");
    const provenance = provenanceOf(grok, GROK_ANSWER, { country: "DE", signedIn: true, hotPage: true }, 2);
    expect(provenance).toEqual({
      country: "DE",
      session: "signed_in",
      attempt: 2,
      hot_page: true,
      model_label: "grok-4-fast",
      scraper_version: "grok/2026.11.1",
    });
    expect(servedByOf(provenance, false)).toEqual({ ...provenance, from_cache: false });
  });

  it("model_label is null where the provider shows none, or its page showed none this time", () => {
    const page = { country: "US", signedIn: false, hotPage: false };
    const copilot = requireProvider("copilot");
    expect(
      provenanceOf(copilot, { result: "x", result_markdown: null, llm_model: "not a label field here" }, page, 1).model_label,
    ).toBeNull();
    const grok = requireProvider("grok");
    expect(provenanceOf(grok, { ...GROK_ANSWER, llm_model: null }, page, 1).model_label).toBeNull();
    expect(provenanceOf(grok, GROK_ANSWER, page, 1).session).toBe("anonymous");
  });

  it("the stored form keeps the provenance beside the answer's fields and reads back whole", () => {
    const grok = requireProvider("grok");
    const provenance = provenanceOf(grok, GROK_ANSWER, { country: "US", signedIn: false, hotPage: false }, 1);
    const stored = JSON.parse(JSON.stringify(storedFormOf({ answer: GROK_ANSWER, provenance })));
    expect(stored.served_by).toEqual(provenance);
    const read = readStoredForm(stored, (fields) => (fields.result === "An answer" ? acceptAnswer(fields) : null));
    expect(read?.provenance).toEqual(provenance);
    expect(read?.answer).not.toHaveProperty("served_by");
  });

  it("an entry without a valid provenance (an older entry, a malformed one) is not read as an answer", () => {
    expect(readStoredForm({ result: "An answer", result_markdown: null }, acceptAnswer)).toBeNull();
    expect(readStoredForm({ result: "An answer", result_markdown: null, served_by: { country: "US" } }, acceptAnswer)).toBeNull();
    expect(readStoredForm([], acceptAnswer)).toBeNull();
  });
});
