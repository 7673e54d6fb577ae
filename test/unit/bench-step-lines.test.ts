/**
 * The bench's reading of the Worker's step lines (bench/step-lines.ts) by request id: the evidence section tells its
 * settings apart by the `X-Request-Id` it sends, which the Worker writes first in brackets (src/util/log-line.ts).
 * The lines below are written the way wrangler prints them: the subject, then `{"event":"scrape_steps",…}`.
 */
import { describe, expect, it } from "vitest";
import { StepLines } from "../../bench/step-lines";

function stepLine(subject: string | null, outcome: string, steps: Record<string, number>): string {
  const json = JSON.stringify({ event: "scrape_steps", provider: "grok", country: "US", outcome, warm_page: true, total_ms: 1100, steps });
  return subject === null ? json : `[${subject}] ${json}`;
}

describe("StepLines.stepsOfRequests", () => {
  it("finds each asked request's steps by the id in its line's brackets", () => {
    const lines = new StepLines();
    lines.accept(stepLine("bench-evidence-abc-grok-screenshot-0", "ok", { answer: 1003, evidence_screenshot: 61 }));
    lines.accept(stepLine("bench-evidence-abc-grok-html-0", "ok", { answer: 1001, evidence_html: 3 }));
    lines.accept(stepLine("bench-evidence-abc-grok-none-0", "ok", { answer: 1002 }));

    const found = lines.stepsOfRequests(new Set(["bench-evidence-abc-grok-screenshot-0", "bench-evidence-abc-grok-html-0"]));

    expect([...found.keys()].sort()).toEqual(["bench-evidence-abc-grok-html-0", "bench-evidence-abc-grok-screenshot-0"]);
    expect(found.get("bench-evidence-abc-grok-screenshot-0")?.get("evidence_screenshot")).toBe(61);
    expect(found.get("bench-evidence-abc-grok-html-0")?.get("evidence_html")).toBe(3);
  });

  it("leaves out failed scrapes, lines without a subject, and a job's subject that only contains the id", () => {
    const lines = new StepLines();
    lines.accept(stepLine("req-failed", "error", { answer: 20 }));
    lines.accept(stepLine(null, "ok", { answer: 1000 }));
    lines.accept(stepLine("req-job job 5f0c", "ok", { answer: 1000 }));

    expect(lines.stepsOfRequests(new Set(["req-failed", "req-job"])).size).toBe(0);
  });
});
