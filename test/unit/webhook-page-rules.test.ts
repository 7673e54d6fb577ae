/**
 * What the dashboard's webhook page says about the endpoints this deployment accepts and how long a failing one is
 * retried (src/dashboard/pages/webhook-rules.tsx), in both modes: a deployed service and a local one (the
 * `WEBHOOK_ALLOW_LOOPBACK` allowance of `npm start`). The page in a running Worker is in
 * test/integration/webhooks.test.ts. Expected sentences are written from the rules: https on 443 or 8443 and public
 * addresses only; locally also localhost, 127.0.0.1 and [::1] over http on any port; retries 1, 3, 12, 60, 360, 720,
 * 2160 and 4320 times the base after each failure.
 */
import { describe, expect, it } from "vitest";
import { formatDuration } from "../../src/dashboard/format";
import { EndpointRules, RetryRules } from "../../src/dashboard/pages/webhook-rules";

async function textOf(element: { toString(): string | Promise<string> }): Promise<string> {
  const html = await element.toString();
  return html.replace(/<[^>]+>/g, "").replaceAll("&#39;", "'");
}

describe("the webhook page's rules", () => {
  it("on a deployed service: https on 443 or 8443, public addresses only, nothing about loopback being accepted", async () => {
    const text = await textOf(EndpointRules({ allowLoopback: false }));
    expect(text).toBe(
      "The URL must use https on port 443 or 8443, with a host that is, or resolves only to, public addresses: private, loopback, " +
        "link-local and reserved addresses are refused.",
    );
  });

  it("on a local deployment: a receiver on this machine over http, and why it is accepted", async () => {
    const text = await textOf(EndpointRules({ allowLoopback: true }));
    expect(text).toContain("A receiver on this machine is accepted because this is a local deployment");
    expect(text).toContain("a URL whose host is written localhost, 127.0.0.1 or [::1], over http or https and on any port");
    expect(text).toContain("(for example http://127.0.0.1:9000/webhooks)");
    expect(text).toContain("Any other URL must use https on port 443 or 8443");
  });

  it("says how long a failing endpoint is retried, from the schedule and the deployment's base", async () => {
    // 5 s × (1 + 3 + 12 + 60 + 360 + 720 + 2160 + 4320) = 38,180 s = 10 h 36 min 20 s.
    expect(await textOf(RetryRules({ retryBaseSeconds: 5 }))).toBe(
      "A failed delivery is retried with back-off, always with the same webhook-id: up to 9 attempts in all, the last about " +
        "10 h 36 min after the first one failed.",
    );
    // The test suites' base of 1 s: 7,636 s = 2 h 7 min 16 s.
    expect(await textOf(RetryRules({ retryBaseSeconds: 1 }))).toContain("the last about 2 h 7 min after");
  });

  it("durations are said to the nearest unit worth saying", () => {
    expect(formatDuration(45_000)).toBe("45 s");
    expect(formatDuration(12 * 60_000)).toBe("12 min");
    expect(formatDuration(90_000)).toBe("1 min 30 s");
    expect(formatDuration(2 * 3_600_000)).toBe("2 h");
    expect(formatDuration(38_180_000)).toBe("10 h 36 min");
  });
});
