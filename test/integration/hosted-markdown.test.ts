/**
 * Hosted markdown (`GET /md/{job_id}.md`): a synchronous answer goes out while its document is still being written
 * (src/pipeline/pipeline.ts), so the route waits a moment for a document that is landing, a background write that fails
 * is tried once more, and `markdown_url` serves the answer's markdown as soon as the caller has it.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { storeHostedMarkdown, storeHostedMarkdownAfterResponse } from "../../src/cache/hosted-markdown";
import { seedCachedGrokAnswer } from "../support/workers/account-helpers";
import { api, createTestAccount, query } from "../support/workers/helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("hosted markdown", () => {
  it("a read that comes before the document's write waits for it", async () => {
    const jobId = crypto.randomUUID();
    const read = api(`/md/${jobId}.md`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await storeHostedMarkdown(env.MARKDOWN, jobId, "# Written late");
    const response = await read;
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("# Written late");
  });

  it("a document that never comes is a 404 naming what may be wrong", async () => {
    const response = await api(`/md/${crypto.randomUUID()}.md`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/expires 24 hours/);
  });

  it("a synchronous answer's markdown_url serves its markdown when fetched at once", async () => {
    const account = await createTestAccount(30);
    const prompt = "Is the document there at once?";
    await seedCachedGrokAnswer(prompt, account.accountId);
    const answer = (await (await api(`/scrapers/grok?${query({ prompt })}`, { apiKey: account.apiKey })).json()) as {
      markdown_url: string;
      result_markdown: string;
    };
    const hosted = await api(new URL(answer.markdown_url).pathname);
    expect(hosted.status).toBe(200);
    expect(await hosted.text()).toBe(answer.result_markdown);
  });

  it("a write after the response that fails is tried once more, and a second failure is logged, never thrown", async () => {
    const written = new Map<string, string>();
    let failuresLeft = 1;
    const flaky = {
      put: async (key: string, value: string) => {
        if (failuresLeft > 0) {
          failuresLeft -= 1;
          throw new Error("KV unavailable");
        }
        written.set(key, value);
      },
    };
    await storeHostedMarkdownAfterResponse(flaky, "job-1", "# Kept");
    expect(written.get("md:job-1")).toBe("# Kept");

    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    failuresLeft = 2;
    await expect(storeHostedMarkdownAfterResponse(flaky, "job-2", "# Lost")).resolves.toBeUndefined();
    expect(written.has("md:job-2")).toBe(false);
    expect(logged).toHaveBeenCalledTimes(1);
  });
});
