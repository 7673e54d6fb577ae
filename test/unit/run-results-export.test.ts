import { describe, expect, it } from "vitest";
import type { AnswerChanges, BrandFigures } from "../../src/monitors/monitor-types";
import { type MonitorResultRow, resultsToCsv, resultsToJsonLines } from "../../src/monitors/run-results-export";

function figures(brand: string, mentions: number, citedRank: number | null): BrandFigures {
  return {
    brand,
    mentioned: mentions > 0,
    firstPosition: mentions > 0 ? { offset: 10, sentence: 1 } : null,
    mentions,
    citedRank,
    citedUrl: citedRank === null ? null : "https://acme.example/",
  };
}

const someChanges: AnswerChanges = {
  sourcesAdded: ["https://b.com/2"],
  sourcesRemoved: ["https://c.com/3", "https://d.com/4"],
  domainsAdded: ["b.com"],
  domainsRemoved: ["c.com", "d.com"],
  domainRankChanges: [{ domain: "a.com", from: 2, to: 1 }],
  brandsGained: ["Acme"],
  brandsLost: ["Globex", "Big Co"],
  textSimilarity: 0.75,
};

function row(overrides: Partial<MonitorResultRow>): MonitorResultRow {
  return {
    prompt: "best crm",
    scraper: "gemini",
    country: "fr",
    status: "done",
    job_id: "job-3",
    text: "",
    sources: [],
    brands: [],
    changes: null,
    ...overrides,
  };
}

const HEADER_WITHOUT_BRANDS =
  "prompt,scraper,country,status,job_id,sources,sources_added,sources_removed,brands_gained,brands_lost,text_similarity\r\n";

describe("resultsToCsv", () => {
  it("writes a header line and one CRLF-ended line per row, with brand columns and quoted fields", () => {
    const rows = [
      row({
        prompt: 'Best CRM, for "small" teams?',
        scraper: "chatgpt",
        country: "us",
        job_id: "job-1",
        text: "Acme is good.",
        sources: [
          { url: "https://a.com/1", title: "A" },
          { url: "https://b.com/2", title: null },
        ],
        brands: [figures("Acme", 2, 1), figures("Globex", 0, null)],
        changes: someChanges,
      }),
      row({ prompt: "line one\nline two", scraper: "perplexity", country: "de", status: "failed", job_id: "job-2" }),
    ];
    expect(resultsToCsv(rows)).toBe(
      "prompt,scraper,country,status,job_id,sources,Acme mentions,Acme cited rank,Globex mentions,Globex cited rank," +
        "sources_added,sources_removed,brands_gained,brands_lost,text_similarity\r\n" +
        '"Best CRM, for ""small"" teams?",chatgpt,us,done,job-1,https://a.com/1 https://b.com/2,2,1,0,,' +
        "https://b.com/2,https://c.com/3 https://d.com/4,Acme,Globex; Big Co,0.75\r\n" +
        // Sources, the four brand cells and the five change cells are empty.
        '"line one\nline two",perplexity,de,failed,job-2' +
        ",".repeat(10) +
        "\r\n",
    );
  });

  it("takes the brand columns from the first row that has figures, in its order", () => {
    const rows = [
      row({ job_id: "job-1", status: "failed" }),
      row({ job_id: "job-2", brands: [figures("Acme", 1, null), figures("Globex", 3, 4)] }),
      row({ job_id: "job-3", brands: [figures("Globex", 0, null), figures("Initech", 5, 1)] }),
    ];
    expect(resultsToCsv(rows)).toBe(
      "prompt,scraper,country,status,job_id,sources,Acme mentions,Acme cited rank,Globex mentions,Globex cited rank," +
        "sources_added,sources_removed,brands_gained,brands_lost,text_similarity\r\n" +
        "best crm,gemini,fr,failed,job-1,,,,,,,,,,\r\n" +
        "best crm,gemini,fr,done,job-2,,1,,3,4,,,,,\r\n" +
        "best crm,gemini,fr,done,job-3,,,,0,,,,,,\r\n",
    );
  });

  it("writes only the header for a run without rows", () => {
    expect(resultsToCsv([])).toBe(HEADER_WITHOUT_BRANDS);
  });

  it("quotes a field with a CR or LF and doubles its quotes", () => {
    expect(resultsToCsv([row({ prompt: 'say "hi"\r\nthen go' })])).toBe(
      `${HEADER_WITHOUT_BRANDS}"say ""hi""\r\nthen go",gemini,fr,done,job-3,,,,,,\r\n`,
    );
    expect(resultsToCsv([row({ prompt: "a\rb" })])).toBe(`${HEADER_WITHOUT_BRANDS}"a\rb",gemini,fr,done,job-3,,,,,,\r\n`);
  });

  const formulas: { prompt: string; cell: string }[] = [
    { prompt: "=1+2", cell: "'=1+2" },
    { prompt: "+33 1 23 45", cell: "'+33 1 23 45" },
    { prompt: "-5 ideas", cell: "'-5 ideas" },
    { prompt: "@SUM(A1)", cell: "'@SUM(A1)" },
    { prompt: "\tindented", cell: "'\tindented" },
    { prompt: "\rreturn", cell: `"'\rreturn"` },
    { prompt: '=HYPERLINK("http://x", "y")', cell: `"'=HYPERLINK(""http://x"", ""y"")"` },
  ];
  for (const { prompt, cell } of formulas) {
    it(`prefixes a field starting a formula with a quote mark: ${JSON.stringify(prompt)}`, () => {
      expect(resultsToCsv([row({ prompt })])).toBe(`${HEADER_WITHOUT_BRANDS}${cell},gemini,fr,done,job-3,,,,,,\r\n`);
    });
  }

  it("leaves a field alone when the formula character is not first", () => {
    expect(resultsToCsv([row({ prompt: "a=b+c-d@e" })])).toBe(`${HEADER_WITHOUT_BRANDS}a=b+c-d@e,gemini,fr,done,job-3,,,,,,\r\n`);
  });

  it("guards the header's brand names too", () => {
    const csv = resultsToCsv([row({ brands: [figures("=Evil", 1, null)] })]);
    expect(csv.split("\r\n")[0]).toBe(
      "prompt,scraper,country,status,job_id,sources,'=Evil mentions,'=Evil cited rank," +
        "sources_added,sources_removed,brands_gained,brands_lost,text_similarity",
    );
  });
});

describe("resultsToJsonLines", () => {
  const rows = [
    row({
      prompt: 'quote " and\nnewline',
      scraper: "chatgpt",
      country: "us",
      job_id: "job-1",
      text: "Acme\u2028next\u2029para\u0085end — café 東京",
      sources: [{ url: "https://a.com/1", title: 'A, "quoted"' }],
      brands: [figures("Acme", 2, 1)],
      changes: someChanges,
    }),
    row({ status: "failed", job_id: "job-2" }),
  ];

  it("writes one JSON object per row, each followed by a newline, that reads back as the row", () => {
    const output = resultsToJsonLines(rows);
    expect(output.endsWith("\n")).toBe(true);
    const lines = output.split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    expect(lines.slice(0, 2).map((line) => JSON.parse(line))).toEqual(rows);
  });

  it("escapes the characters some readers take for line ends", () => {
    const output = resultsToJsonLines(rows);
    expect(output).not.toMatch(/[\u0085\u2028\u2029]/);
    expect(output).toContain("Acme\\u2028next\\u2029para\\u0085end");
  });

  it("writes nothing for no rows", () => {
    expect(resultsToJsonLines([])).toBe("");
  });

  it("writes the row's fields only", () => {
    const withExtra = { ...row({ job_id: "job-9" }), accountId: "secret" };
    const parsed: unknown = JSON.parse(resultsToJsonLines([withExtra]));
    expect(parsed).toEqual(row({ job_id: "job-9" }));
  });
});
