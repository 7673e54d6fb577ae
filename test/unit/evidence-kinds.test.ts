/** How evidence is asked for (src/evidence/evidence-kinds.ts): read leniently, validated strictly. */
import { describe, expect, it } from "vitest";
import { InvalidParameterError } from "../../src/errors";
import { kindsFromText, parseEvidenceField, parseEvidenceHeader } from "../../src/evidence/evidence-kinds";

const ACCEPTED = "accepted: screenshot, html, stream (comma-separated), or none";

describe("the X-Evidence header", () => {
  it("reads case, spaces, repeats and `all`, and answers the kinds in the documented order", () => {
    expect(parseEvidenceHeader(" Stream, SCREENSHOT ,stream")).toEqual(["screenshot", "stream"]);
    expect(parseEvidenceHeader("html,")).toEqual(["html"]);
    expect(parseEvidenceHeader("all")).toEqual(["screenshot", "html", "stream"]);
    expect(parseEvidenceHeader("None")).toEqual([]);
    expect(parseEvidenceHeader(undefined)).toBeUndefined();
  });

  it("refuses an unknown kind, `none` beside a kind, and an empty value, naming the header and what it accepts", () => {
    expect(() => parseEvidenceHeader("screenshot,video")).toThrow(
      new InvalidParameterError(`X-Evidence: unknown evidence kind "video"; ${ACCEPTED}`),
    );
    expect(() => parseEvidenceHeader("none,html")).toThrow(
      new InvalidParameterError(`X-Evidence: unknown evidence kind "none"; ${ACCEPTED}`),
    );
    expect(() => parseEvidenceHeader("")).toThrow(new InvalidParameterError(`X-Evidence: must not be empty; ${ACCEPTED}`));
  });

  it("quotes at most 40 characters of what it refuses", () => {
    expect(() => parseEvidenceHeader("x".repeat(500))).toThrow(`"${"x".repeat(40)}"`);
  });
});

describe("a batch item's evidence field", () => {
  it("takes a list or a header-style string; absent or null is the account's default", () => {
    expect(parseEvidenceField("items[0].evidence", ["html", "screenshot"])).toEqual(["screenshot", "html"]);
    expect(parseEvidenceField("items[0].evidence", "stream")).toEqual(["stream"]);
    expect(parseEvidenceField("items[0].evidence", [])).toEqual([]);
    expect(parseEvidenceField("items[0].evidence", undefined)).toBeUndefined();
    expect(parseEvidenceField("items[0].evidence", null)).toBeUndefined();
  });

  it("refuses anything else, naming the item", () => {
    expect(() => parseEvidenceField("items[2].evidence", 3)).toThrow(/^items\[2\]\.evidence: must be a list of evidence kinds/);
    expect(() => parseEvidenceField("items[2].evidence", ["html", 4])).toThrow(/^items\[2\]\.evidence: must be a list/);
    expect(() => parseEvidenceField("items[2].evidence", ["pdf"])).toThrow(`items[2].evidence: unknown evidence kind "pdf"`);
  });
});

describe("a stored list read back", () => {
  it("keeps the known kinds in order and drops anything else", () => {
    expect(kindsFromText("stream,screenshot,bogus")).toEqual(["screenshot", "stream"]);
    expect(kindsFromText("")).toEqual([]);
    expect(kindsFromText(null)).toEqual([]);
  });
});
