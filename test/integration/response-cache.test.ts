/**
 * The response cache's own guarantees (src/cache/response-cache.ts): a synchronous answer goes out before its cache
 * entry is written, so the isolate serves its pending write to an identical request, and a failed write costs a later
 * scrape, never the answer.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { readCachedAnswer, responseCacheKey, writeCachedAnswer } from "../../src/cache/response-cache";

/** env.CACHE whose `put` runs `put` instead (everything else is the real namespace). */
function cacheWithPut(put: (key: string, value: string) => Promise<void>): KVNamespace {
  return new Proxy(env.CACHE, {
    get(target, property) {
      if (property === "put") return put;
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function keyFor(prompt: string): Promise<string> {
  return responseCacheKey("grok", { prompt, country: "US", bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" }, "acct_cache_test");
}

const ANSWER = { result: "Paris.", result_markdown: "Paris.", model: "grok-4" };

describe("response cache writes", () => {
  it("an entry whose KV write has not landed yet is read from this isolate, then from KV once it has", async () => {
    const key = await keyFor("Capital of France?");
    let land: () => void = () => undefined;
    const landed = new Promise<void>((resolve) => {
      land = resolve;
    });
    const slowCache = cacheWithPut(async (putKey, value) => {
      await landed;
      await env.CACHE.put(putKey, value, { expirationTtl: 60 });
    });

    const writing = writeCachedAnswer(slowCache, key, ANSWER, 3600);
    // KV has nothing yet, but a request this isolate serves meanwhile gets the answer
    expect(await env.CACHE.get(key)).toBeNull();
    expect(await readCachedAnswer(env.CACHE, key)).toEqual(ANSWER);

    land();
    await writing;
    expect(JSON.parse((await env.CACHE.get(key)) ?? "null")).toEqual(ANSWER);
    // the pending copy is gone: a read now comes from KV (a copy, not the object that was written)
    const afterWrite = await readCachedAnswer(env.CACHE, key);
    expect(afterWrite).toEqual(ANSWER);
    expect(afterWrite).not.toBe(ANSWER);
  });

  it("a failed write is logged, not thrown, and leaves no entry behind", async () => {
    const key = await keyFor("Capital of Spain?");
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const failingCache = cacheWithPut(() => Promise.reject(new Error("KV PUT failed: 503")));
      await expect(writeCachedAnswer(failingCache, key, ANSWER, 3600)).resolves.toBeUndefined();
      expect(logged).toHaveBeenCalledWith(expect.stringContaining("could not write the response cache entry"), expect.any(Error));
    } finally {
      logged.mockRestore();
    }
    expect(await readCachedAnswer(env.CACHE, key)).toBeNull();
  });
});
