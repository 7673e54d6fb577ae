/** The throttle of failed admin-token attempts (src/auth/admin-attempts.ts): its GCRA arithmetic, clients, and memory bound. */
import { describe, expect, it } from "vitest";
import { FailedAttempts, clientOfAddress } from "../../src/auth/admin-attempts";

describe("FailedAttempts", () => {
  it("ten failures at once, then one more every six seconds", () => {
    const attempts = new FailedAttempts(10);
    for (let failure = 0; failure < 10; failure += 1) {
      expect(attempts.retryAfterMs("a", 0)).toBe(0);
      attempts.recordFailure("a", 0);
    }
    expect(attempts.retryAfterMs("a", 0)).toBe(6_000);
    expect(attempts.retryAfterMs("a", 5_999)).toBe(1);
    expect(attempts.retryAfterMs("a", 6_000)).toBe(0);
    expect(attempts.retryAfterMs("b", 0)).toBe(0);
  });

  it("keeps at most its bound of clients, forgetting the least recently failing first", () => {
    const attempts = new FailedAttempts(1, 2);
    attempts.recordFailure("first", 0);
    attempts.recordFailure("second", 0);
    attempts.recordFailure("third", 0);
    expect(attempts.retryAfterMs("first", 0)).toBe(0);
    expect(attempts.retryAfterMs("second", 0)).toBe(60_000);
    expect(attempts.retryAfterMs("third", 0)).toBe(60_000);
  });
});

describe("clientOfAddress", () => {
  it("an IPv4 address is itself; an IPv6 address is its /64, however it is written", () => {
    expect(clientOfAddress("203.0.113.9")).toBe("203.0.113.9");
    expect(clientOfAddress("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(clientOfAddress("2001:0DB8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(clientOfAddress("unknown")).toBe("unknown");
  });
});
