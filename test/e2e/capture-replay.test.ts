/**
 * Capture and replay end to end (issue 12, item 2): `POST /admin/captures` runs a real scrape (real Chromium, the
 * replicas) with recording, and the file it answers replays through the provider's parser to the same answer, for
 * every provider. A scrape whose parser fails still yields the file (the test of the fix); credentials never reach it.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { type CaptureFile, CaptureFileSchema } from "../../src/capture-files/format";
import { replayCapture } from "../../src/capture-files/replay";
import { providerById } from "../../src/scrapers/registry";
import { adminApi } from "../support/workers/account-helpers";
import { discardPreparedPages, replicaControl } from "../support/workers/helpers";

async function capture(
  scraper: string,
  query: Record<string, string>,
): Promise<{ status: number; body: unknown; requestId: string | null }> {
  const response = await adminApi("/admin/captures", { method: "POST", body: { scraper, query } });
  return { status: response.status, body: await response.json(), requestId: response.headers.get("X-Request-Id") };
}

async function captureFile(scraper: string, query: Record<string, string>): Promise<CaptureFile> {
  const { status, body } = await capture(scraper, query);
  expect(status, JSON.stringify(body).slice(0, 500)).toBe(200);
  return CaptureFileSchema.parse(body);
}

/** Percent-decoding where it applies (form bodies, URLs), leaving anything else as it is. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return text;
  }
}

function providerOf(id: string) {
  const provider = providerById(id);
  if (provider === undefined) throw new Error(`no provider ${id}`);
  return provider;
}

afterEach(async () => {
  await replicaControl("reset", {});
});

describe("POST /admin/captures: every provider's capture replays to its answer", () => {
  const CASES: ReadonlyArray<[scraper: string, query: Record<string, string>, exchange: string]> = [
    ["chatgpt", { prompt: "What is the tallest building in the world?", markdown_json: "true" }, "conversation"],
    ["perplexity", { prompt: "Who built the Eiffel Tower?" }, "answer_stream"],
    ["grok", { prompt: "What is new with Starship?", mode: "MODEL_MODE_FAST" }, "conversation"],
    ["copilot", { prompt: "How do solar panels work?", mode: "search" }, "chat"],
    ["gemini", { prompt: "Who designed the Eiffel Tower?" }, "stream_generate"],
    ["google_ai_mode", { prompt: "How long is a day on Mars?" }, "folwr"],
    ["amazon_rufus", { prompt: "desk lamp for a small desk", country: "DE" }, "streaming"],
  ];

  for (const [scraper, query, exchangeName] of CASES) {
    it(`${scraper}: the raw exchange with timings and the answer; the replay gives the same answer`, async () => {
      const file = await captureFile(scraper, query);
      expect(file).toMatchObject({ scraper, site: "override", failure: null });
      expect(file.origin).toMatch(new RegExp(`^${env.REPLICA_URL.replaceAll(".", "\\.")}/${scraper}`));
      expect(file.query).toMatchObject(query);
      const exchange = file.exchanges[exchangeName];
      if (exchange === undefined) throw new Error(`no ${exchangeName} exchange in ${Object.keys(file.exchanges).join(", ")}`);
      // the request as it left the page carries the prompt (a JSON or form body, a sent frame, or the URL of a GET)
      const sentFrames = exchange.frames.filter((frame) => frame.direction === "sent").map((frame) => frame.data);
      const request = exchange.request_body ?? (sentFrames.length > 0 ? sentFrames.join("\n") : exchange.url);
      expect(decoded(request)).toContain((query.prompt ?? "").split(" ").slice(0, 3).join(" "));
      const pieces = exchange.transport === "websocket" ? exchange.frames : exchange.chunks;
      expect(pieces.length).toBeGreaterThan(0);
      expect(pieces.map((piece) => piece.at_ms)).toEqual([...pieces.map((piece) => piece.at_ms)].sort((a, b) => a - b));
      expect(file.answer?.result).toEqual(expect.any(String));

      const replayed = replayCapture(providerOf(scraper), file);
      if (replayed.kind === "failed") throw new Error(replayed.problem);
      expect(replayed.differences).toEqual([]);
      expect(replayed.answer).toEqual(file.answer);
    });
  }

  it("the request's tokens are masked in the file, and say where (Gemini's `at`)", async () => {
    const file = await captureFile("gemini", { prompt: "Who designed the Eiffel Tower?" });
    expect(file.redactions).toContain("exchanges.stream_generate.request_body: at");
    expect(file.exchanges.stream_generate?.request_body).toMatch(/(?:^|&)at=\*+(?:&|$)/);
  });
});

describe("POST /admin/captures when the scrape fails", () => {
  it("after the exchange was recorded (the parser failed): the file, with no answer and the failure", async () => {
    await replicaControl("faults", { provider: "grok", fault: "malformed_stream", count: 1 });
    const file = await captureFile("grok", { prompt: "What is new with Starship?" });
    expect(file.answer).toBeNull();
    expect(file.failure).toMatchObject({ status: 502, code: null });
    expect(file.failure?.detail).toMatch(/Safe to retry/);
    expect(file.exchanges.conversation?.body_text).toBeTruthy();
    const replayed = replayCapture(providerOf("grok"), file);
    expect(replayed.kind === "failed" ? replayed.problem : "answered").toMatch(/^the parser failed: UpstreamError 502 /);
  });

  it("before anything was recorded (a login wall on the page): the scrape's own error", async () => {
    await replicaControl("faults", { provider: "grok", fault: "login_wall", count: 1 });
    const { status, body, requestId } = await capture("grok", { prompt: "What is new with Starship?" });
    expect(status).toBe(502);
    expect(body).toEqual({ detail: expect.stringMatching(/sign in|login/i), code: "provider_login_required", request_id: requestId });
  });
});

describe("POST /admin/captures: what it refuses", () => {
  it("needs the operator token", async () => {
    const response = await adminApi("/admin/captures", { method: "POST", body: { scraper: "grok", query: { prompt: "x" } }, token: null });
    expect(response.status).toBe(401);
  });

  it("validates the scraper and its query like the scrape endpoint, naming the field", async () => {
    const cases: Array<[body: Record<string, unknown>, detail: RegExp]> = [
      [{ scraper: "bing", query: { prompt: "x" } }, /^scraper: must be one of chatgpt, /],
      [{ scraper: "grok", query: {} }, /^query: prompt: is required$/],
      [{ scraper: "grok", query: { prompt: "x", mode: "turbo" } }, /^query: mode: must be one of MODEL_MODE_AUTO, /],
      [{ scraper: "grok", query: { prompt: "x", foo: "1" } }, /^query: Unknown parameter: foo\. The grok scraper accepts: /],
      [{ scraper: "grok", query: { prompt: "x", api_key: "sk_x" } }, /^query\.api_key: not used by captures/],
      [{ scraper: "grok", query: { prompt: 3 } }, /^query\.prompt: every value must be a string/],
      [{ scraper: "grok", query: { prompt: "x" }, extra: true }, /Unrecognized key|extra/],
    ];
    for (const [body, detail] of cases) {
      const response = await adminApi("/admin/captures", { method: "POST", body });
      const answer = (await response.json()) as { detail?: string };
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(answer.detail, JSON.stringify(body)).toMatch(detail);
    }
  });
});

describe("a capture made with a provider account", () => {
  afterEach(async () => {
    await fetch(`${env.REPLICA_URL}/amazon_rufus/__control/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reset: true }),
    });
    await discardPreparedPages();
    await env.DB.prepare("DELETE FROM provider_accounts").run();
  });

  it("runs signed in and never holds the session's cookies", async () => {
    await fetch(`${env.REPLICA_URL}/amazon_rufus/__control/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ required: true }),
    });
    await discardPreparedPages();
    const signIn = await fetch(`${env.REPLICA_URL}/amazon_rufus/amazon.com/ap/signin`, {
      method: "POST",
      body: new URLSearchParams({ email: "ops@example.com", password: "long-enough-password" }),
      redirect: "manual",
    });
    const cookies = signIn.headers.getSetCookie().map((line) => {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      return { name: pair.slice(0, at), value: pair.slice(at + 1), path: "/amazon_rufus/amazon.com/" };
    });
    const stored = await adminApi("/admin/provider-accounts", {
      method: "POST",
      body: { provider: "amazon_rufus", marketplace: "amazon.com", label: "capture", storage_state: { cookies } },
    });
    expect(stored.status).toBe(201);
    const file = await captureFile("amazon_rufus", { prompt: "desk lamp" });
    expect(file.answer).not.toBeNull();
    const text = JSON.stringify(file);
    for (const cookie of cookies) expect(text).not.toContain(cookie.value);
  });
});
