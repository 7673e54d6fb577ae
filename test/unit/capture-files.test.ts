/**
 * The capture file's pieces (src/capture-files/): the body stored as text with each chunk's byte length rebuilds the
 * exact bytes in the exact pieces; redaction masks credentials byte for byte and leaves answer text alone; the
 * comparison names what moved.
 */
import { describe, expect, it } from "vitest";
import { answerDifferences } from "../../src/capture-files/compare";
import { CAPTURE_FORMAT, type CaptureFile, type ExchangeFile, exchangeFromFile, exchangeToFile } from "../../src/capture-files/format";
import { CaptureRecorder, InMemoryInputs, ReplayInputError } from "../../src/browser/page/capture/recording";
import { redactCaptureFile } from "../../src/capture-files/redact";
import type { CapturedExchange } from "../../src/browser/page/capture/types";

const encoder = new TextEncoder();

function exchangeOf(chunks: Uint8Array[], extra: Partial<CapturedExchange> = {}): CapturedExchange {
  return {
    rule: "conversation",
    transport: "fetch",
    url: "https://grok.com/rest/app-chat/conversations/new",
    method: "POST",
    status: 200,
    contentType: "application/json",
    requestBody: '{"message":"hi"}',
    chunks,
    chunkTimesMs: chunks.map((_chunk, index) => index * 10),
    frames: [],
    complete: true,
    error: null,
    startedAt: 1_700_000_000_000,
    ...extra,
  };
}

function fileWith(exchange: ExchangeFile, snapshots: Record<string, unknown> = {}): CaptureFile {
  return {
    format: CAPTURE_FORMAT,
    scraper: "grok",
    recorded_at: "2026-11-22T00:00:00.000+00:00",
    site: "override",
    origin: "http://127.0.0.1:8788/grok",
    query: { prompt: "hi" },
    exchanges: { conversation: exchange },
    snapshots,
    answer: null,
    failure: null,
    redactions: [],
  };
}

function concat(chunks: readonly Uint8Array[]): number[] {
  return chunks.flatMap((chunk) => [...chunk]);
}

describe("capture file: bodies and chunks", () => {
  it("stores a UTF-8 body as text with chunk lengths, and rebuilds the same bytes in the same pieces", () => {
    const bytes = encoder.encode('{"token":"Grüße 👋"}\n');
    // cuts inside "ü" (2 bytes) and inside the 4-byte emoji
    const chunks = [bytes.slice(0, 13), bytes.slice(13, 20), bytes.slice(20)];
    const file = exchangeToFile(exchangeOf(chunks));
    expect(file.body_text).toBe('{"token":"Grüße 👋"}\n');
    expect(file.body_base64).toBeUndefined();
    expect(file.chunks).toEqual([
      { bytes: 13, at_ms: 0 },
      { bytes: 7, at_ms: 10 },
      { bytes: bytes.byteLength - 20, at_ms: 20 },
    ]);
    const rebuilt = exchangeFromFile(file);
    expect(rebuilt.chunks.map((chunk) => [...chunk])).toEqual(chunks.map((chunk) => [...chunk]));
    expect(rebuilt.chunkTimesMs).toEqual([0, 10, 20]);
    expect(rebuilt).toMatchObject({ url: file.url, requestBody: '{"message":"hi"}', status: 200, complete: true });
  });

  it("stores a body that is not UTF-8 as base64, byte for byte", () => {
    const chunks = [new Uint8Array([0xff, 0x00, 0x41]), new Uint8Array([0xc3])];
    const file = exchangeToFile(exchangeOf(chunks));
    expect(file.body_text).toBeUndefined();
    expect(concat(exchangeFromFile(file).chunks)).toEqual([0xff, 0x00, 0x41, 0xc3]);
  });

  it("keeps WebSocket frames with their direction and timing", () => {
    const frames = [
      { direction: "sent" as const, data: '{"event":"send"}', binary: false, atMs: 3 },
      { direction: "received" as const, data: "AAE=", binary: true, atMs: 9 },
    ];
    const rebuilt = exchangeFromFile(exchangeToFile(exchangeOf([], { transport: "websocket", status: 101, frames })));
    expect(rebuilt.frames).toEqual(frames);
  });

  it("refuses a file whose chunks no longer add up to its body (an edited body)", () => {
    const file = exchangeToFile(exchangeOf([encoder.encode("abc")]));
    expect(() => exchangeFromFile({ ...file, body_text: "abcd" })).toThrow(/add up to 3 bytes but the body has 4/);
  });
});

describe("capture file: redaction", () => {
  const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ";

  it("masks tokens in requests (form, JSON, URL) and says where, never what", () => {
    const file = fileWith({
      ...exchangeToFile(exchangeOf([encoder.encode("{}")])),
      url: "wss://copilot.microsoft.com/c/api/chat?api-version=2&clientSessionId=0f3a9c&accessToken=abcdef123456&temporarySessionKey=k3y&f.sid=-6131",
      request_body: 'f.req=%5B%5B%22hi%22%5D%5D&at=AJpMio_Sekret-Token%3A1700000000000&{"csrfToken":"c5rf-v4lue","message":"hi"}',
    });
    const redacted = redactCaptureFile(file);
    const exchange = redacted.exchanges.conversation;
    expect(exchange?.url).toBe(
      "wss://copilot.microsoft.com/c/api/chat?api-version=2&clientSessionId=******&accessToken=************&temporarySessionKey=***&f.sid=*****",
    );
    expect(exchange?.request_body).toContain(`f.req=%5B%5B%22hi%22%5D%5D&at=${"*".repeat("AJpMio_Sekret-Token%3A1700000000000".length)}&`);
    expect(exchange?.request_body).toContain('"csrfToken":"**********","message":"hi"');
    expect(redacted.redactions).toEqual([
      "exchanges.conversation.request_body: at",
      "exchanges.conversation.request_body: csrfToken",
      "exchanges.conversation.url: accessToken",
      "exchanges.conversation.url: clientSessionId",
      "exchanges.conversation.url: f.sid",
      "exchanges.conversation.url: temporarySessionKey",
    ]);
    expect(JSON.stringify(redacted)).not.toMatch(/Sekret|c5rf-v4lue|abcdef123456|0f3a9c|k3y|6131/);
  });

  it('leaves answer text alone (Grok streams it as {"token": …}) and masks credentials in responses byte for byte', () => {
    const body = `{"token":"Hello"}\n{"access_token":"ya29.Sëcret-value","note":"Bearer abcdefghijklmnopqrstuvwxyz","id":"${jwt}"}\n`;
    const bytes = encoder.encode(body);
    const chunks = [bytes.slice(0, 25), bytes.slice(25, 40), bytes.slice(40)];
    const redacted = redactCaptureFile(fileWith(exchangeToFile(exchangeOf(chunks))));
    const exchange = redacted.exchanges.conversation;
    if (exchange === undefined) throw new Error("no exchange");
    expect(exchange.body_text).toContain('{"token":"Hello"}');
    expect(exchange.body_text).not.toMatch(/ya29|Sëcret|abcdefghijklmnop|eyJ/);
    expect(exchange.body_text).toContain("Bearer **************************");
    // same byte length: the recorded chunk lengths still rebuild the stream
    expect(encoder.encode(exchange.body_text ?? "").byteLength).toBe(bytes.byteLength);
    expect(exchangeFromFile(exchange).chunks.map((chunk) => chunk.byteLength)).toEqual([25, 15, bytes.byteLength - 40]);
    expect(redacted.redactions).toEqual([
      "exchanges.conversation.body_text: access_token",
      "exchanges.conversation.body_text: bearer",
      "exchanges.conversation.body_text: jwt",
    ]);
  });

  it("masks hidden CSRF fields and credential-named fields of page snapshots", () => {
    const html =
      '<form><input type="hidden" name="csrf_token" value="s3cr3t-v4lue"><input name="q" value="lamps"></form><meta name="csrf-token" content="m3ta-t0ken">';
    const redacted = redactCaptureFile(
      fileWith(exchangeToFile(exchangeOf([])), { answer_html: html, page: { sessionToken: "abc123", title: "Lamps" } }),
    );
    expect(redacted.snapshots.answer_html).toBe(
      '<form><input type="hidden" name="csrf_token" value="************"><input name="q" value="lamps"></form><meta name="csrf-token" content="**********">',
    );
    expect(redacted.snapshots.page).toEqual({ sessionToken: "******", title: "Lamps" });
  });

  it("masks a token in a name:value list of a query (Google's async=_fmt:adl,_xsrf:…)", () => {
    const url = "https://www.google.com/async/folwr?q=mars&async=_fmt:adl,_xsrf:FIEVpsOlGHajtBH1h2N9En_3UsHOKzO5";
    const redacted = redactCaptureFile(fileWith({ ...exchangeToFile(exchangeOf([])), url }));
    expect(redacted.exchanges.conversation?.url).toBe(`https://www.google.com/async/folwr?q=mars&async=_fmt:adl,_xsrf:${"*".repeat(32)}`);
    expect(redacted.redactions).toEqual(["exchanges.conversation.url: _xsrf"]);
  });

  it("masks Google API keys: the `key` query parameter of a request, and the value wherever it appears", () => {
    const apiKey = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"; // AIza + 35 characters
    const file = fileWith(
      {
        ...exchangeToFile(exchangeOf([])),
        url: `https://generativelanguage.googleapis.com/v1/models:stream?alt=sse&key=${apiKey}`,
      },
      { answer_html: `<script src="/maps.js"></script><div data-config='{"k":"${apiKey}"}'>Mars</div>` },
    );
    const redacted = redactCaptureFile(file);
    expect(redacted.exchanges.conversation?.url).toBe(
      `https://generativelanguage.googleapis.com/v1/models:stream?alt=sse&key=${"*".repeat(39)}`,
    );
    expect(redacted.snapshots.answer_html).toBe(`<script src="/maps.js"></script><div data-config='{"k":"${"*".repeat(39)}"}'>Mars</div>`);
    expect(redacted.redactions).toEqual(["exchanges.conversation.url: google_api_key", "snapshots.answer_html: google_api_key"]);
  });

  it("masks inside a form-encoded body: a nested URL's token, an encoded address, `Bearer+…`, encoded JSON; the rest byte for byte", () => {
    const body =
      "f.req=%5B%22hi%22%5D" +
      "&redirect=https%3A%2F%2Fexample.com%2Fcb%3Ftoken%3Dabc123XYZ%26lang%3Den" +
      "&email=bob%40example.com" +
      "&auth=Bearer+abcdefghijklmnopqrstu" +
      "&x=%7B%22csrf%22%3A%22s3cr3t%22%7D";
    const file = fileWith({ ...exchangeToFile(exchangeOf([])), request_body: body });
    const redacted = redactCaptureFile(file);
    expect(redacted.exchanges.conversation?.request_body).toBe(
      "f.req=%5B%22hi%22%5D" +
        "&redirect=https%3A%2F%2Fexample.com%2Fcb%3Ftoken%3D*********%26lang%3Den" +
        "&email=*****************" +
        "&auth=Bearer+*********************" +
        "&x=%7B%22csrf%22%3A%22******%22%7D",
    );
    expect(redacted.redactions).toEqual([
      "exchanges.conversation.request_body: bearer",
      "exchanges.conversation.request_body: csrf",
      "exchanges.conversation.request_body: email",
      "exchanges.conversation.request_body: token",
    ]);
  });

  it("masks a response's tokens by name (read_write_token, a credential-shaped bare token) and keeps Grok's answer tokens", () => {
    const lines = [
      '{"type":"resume_conversation_token","token":"eyJhbGciOi7Jk","conversation_id":"c1"}',
      '{"read_write_token":"d0b7ef49-cfb7-4db6-aeb7-ec23cdb7ea90","max_tokens":"4096"}',
      '{"token":"x9Kf83hsQ0pLm2Zt"}',
      '{"token":"Hello"}',
      '{"token":"Starship 2025 "}',
      '{"token":"Internationalization"}',
      '<a href="https://cdn.example.com/f?token=a1b2c3d4e5f6g7h8&amp;w=1">file</a>',
    ];
    const bytes = encoder.encode(`${lines.join("\n")}\n`);
    const redacted = redactCaptureFile(fileWith(exchangeToFile(exchangeOf([bytes.slice(0, 50), bytes.slice(50)]))));
    const exchange = redacted.exchanges.conversation;
    expect(exchange?.body_text?.split("\n")).toEqual([
      `{"type":"resume_conversation_token","token":"${"*".repeat(13)}","conversation_id":"c1"}`,
      `{"read_write_token":"${"*".repeat(36)}","max_tokens":"4096"}`,
      `{"token":"${"*".repeat(16)}"}`,
      '{"token":"Hello"}',
      '{"token":"Starship 2025 "}',
      '{"token":"Internationalization"}',
      `<a href="https://cdn.example.com/f?token=${"*".repeat(16)}&amp;w=1">file</a>`,
      "",
    ]);
    expect(exchange === undefined ? [] : exchangeFromFile(exchange).chunks.map((chunk) => chunk.byteLength)).toEqual([
      50,
      bytes.byteLength - 50,
    ]);
    expect(redacted.redactions).toEqual(["exchanges.conversation.body_text: read_write_token", "exchanges.conversation.body_text: token"]);
  });

  it("masks e-mail addresses in requests, responses, frames and snapshots, but not one the answer or the prompt holds", () => {
    const file: CaptureFile = {
      ...fileWith(
        {
          ...exchangeToFile(
            exchangeOf([encoder.encode('{"user":{"email":"jane.doe@example.com","name":"Jane"},"text":"Write to press@example.org"}')]),
          ),
          url: "https://chat.example.com/api?login_hint=jane.doe%40example.com&v=2",
          request_body: '{"message":"Forward it to me@my-company.example","account":"jane.doe@example.com"}',
          frames: [{ direction: "received", data: "hello jane.doe@example.com", binary: false, at_ms: 5 }],
        },
        { page: '<a href="mailto:jane.doe@example.com">Jane</a>, <a href="mailto:press@example.org">Press</a>' },
      ),
      query: { prompt: "Forward it to me@my-company.example" },
      answer: { result: "Write to press@example.org", sources: [] },
    };
    const redacted = redactCaptureFile(file);
    const exchange = redacted.exchanges.conversation;
    expect(exchange?.url).toBe(`https://chat.example.com/api?login_hint=${"*".repeat(22)}&v=2`);
    expect(exchange?.request_body).toBe(`{"message":"Forward it to me@my-company.example","account":"${"*".repeat(20)}"}`);
    expect(exchange?.body_text).toBe(`{"user":{"email":"${"*".repeat(20)}","name":"Jane"},"text":"Write to press@example.org"}`);
    expect(exchange?.frames[0]?.data).toBe(`hello ${"*".repeat(20)}`);
    expect(redacted.snapshots.page).toBe(`<a href="mailto:${"*".repeat(20)}">Jane</a>, <a href="mailto:press@example.org">Press</a>`);
    expect(redacted.redactions).toEqual([
      "exchanges.conversation.body_text: email",
      "exchanges.conversation.frames[0]: email",
      "exchanges.conversation.request_body: email",
      "exchanges.conversation.url: email",
      "snapshots.page: email",
    ]);
  });

  it("masks `bearer …` whatever its case", () => {
    const frames = [{ direction: "sent" as const, data: "authorization: bearer abcdefghijklmnopqrstuvwx", binary: false, at_ms: 1 }];
    const redacted = redactCaptureFile(fileWith({ ...exchangeToFile(exchangeOf([])), transport: "websocket", frames }));
    expect(redacted.exchanges.conversation?.frames[0]?.data).toBe(`authorization: bearer ${"*".repeat(24)}`);
  });

  it("reads a crafted chain of nested queries without running out of stack", () => {
    const chain = `https://example.com/?a=${"x?a=".repeat(20_000)}end`;
    const redacted = redactCaptureFile(fileWith({ ...exchangeToFile(exchangeOf([])), url: chain }));
    expect(redacted.exchanges.conversation?.url).toBe(chain);
  });

  it("changes nothing in a capture without credentials", () => {
    const file = fileWith(exchangeToFile(exchangeOf([encoder.encode('{"result":{"token":"Hi"}}\n')])), { page_completed: true });
    expect(redactCaptureFile(file)).toEqual(file);
  });
});

describe("capture file: what moved", () => {
  it("names every difference by its path", () => {
    const expected = {
      result: "The tower is 330 m tall.",
      sources: [{ url: "https://a.example" }, { url: "https://b.example" }],
      llm_model: "x",
    };
    const actual = { result: "The tower is 300 m tall.", sources: [{ url: "https://a.example/" }], extra: 1 };
    expect(answerDifferences(expected, actual)).toEqual([
      'result: differs at character 14: expected "The tower is 330 m tall.", got "The tower is 300 m tall."',
      "sources: expected 2 items, got 1",
      'sources[0].url: differs at character 17: expected "https://a.example", got "https://a.example/"',
      'llm_model: missing (expected "x")',
      "extra: unexpected field (1)",
    ]);
    expect(answerDifferences(expected, structuredClone(expected))).toEqual([]);
  });
});

describe("capture recorder", () => {
  it("keeps snapshots as the JSON the file will hold, and fills what a narrower exchange view lacks", () => {
    const recorder = new CaptureRecorder();
    recorder.snapshot("page", { html: "<p>", missing: undefined });
    recorder.exchange("folwr", {
      url: "https://www.google.com/async/folwr",
      status: 200,
      contentType: "text/html",
      requestBody: null,
      chunks: [encoder.encode("<div>")],
      complete: true,
      error: null,
    });
    expect(recorder.snapshots.get("page")).toEqual({ html: "<p>" });
    expect(recorder.exchanges.get("folwr")).toMatchObject({
      rule: "folwr",
      transport: "fetch",
      method: "GET",
      chunkTimesMs: [0],
      frames: [],
    });
  });

  it("reading back an input the capture lacks, or of the wrong shape, is a clear error", async () => {
    const { z } = await import("@hono/zod-openapi");
    const inputs = new InMemoryInputs("https://grok.com", new Map(), new Map([["page_completed", "yes"]]));
    expect(() => inputs.exchange("conversation")).toThrow(ReplayInputError);
    expect(() => inputs.snapshot("page_completed", z.boolean())).toThrow(/snapshot "page_completed" does not have the expected shape/);
    expect(inputs.snapshot("absent", z.boolean())).toBeUndefined();
  });
});
