/**
 * Issue 32 in the dashboard, inside the Workers runtime: the overview's evidence card saves the account's default
 * (the checkboxes post; a value no checkbox sends is refused and nothing is saved; the post needs the session, the
 * same origin and the CSRF token like every dashboard form); the playground's snippets ask for the evidence chosen in
 * the form with `X-Evidence`; and the result viewer shows a run's evidence (same-origin screenshot and downloads, what
 * is missing and why, an expired set said to be expired) and links each source to where the answer cites it. The same
 * flows in Chromium, with real scrapes and real files, are in test/browser/evidence.test.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { storePlaygroundRun } from "../../src/dashboard/playground/run-store";
import { jobStub } from "../../src/jobs/job-record";
import { createUnqueuedJob } from "../support/workers/async-helpers";
import { newAccount, newKey } from "../support/workers/account-helpers";
import { Visitor, signedInVisitor } from "../support/workers/dashboard-visitor";

interface StoredDefault {
  evidence_kinds: string;
  failure_evidence: number;
}

async function storedDefault(accountId: string): Promise<StoredDefault | null> {
  return env.DB.prepare("SELECT evidence_kinds, failure_evidence FROM accounts WHERE id = ?").bind(accountId).first<StoredDefault>();
}

/** The checkbox `name` of the overview's page, and whether it is checked. */
function checkbox(html: string, name: string): { present: boolean; checked: boolean } {
  const match = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html);
  return { present: match !== null, checked: match !== null && /\schecked(=|\s|>|\/)/.test(match[0]) };
}

describe("the overview's evidence card", () => {
  it("starts unchecked, saves the chosen kinds and failure evidence, and shows them checked after the redirect", async () => {
    const account = await newAccount({ name: "Evidence Keepers" });
    const { visitor, csrf } = await signedInVisitor(account.account_id);
    const before = await (await visitor.get("/dashboard")).text();
    expect(before).toContain("Evidence");
    expect(before).toContain("No extra credits");
    expect(before).toContain("X-Evidence");
    for (const name of ["evidence_screenshot", "evidence_html", "evidence_stream", "failure_evidence"]) {
      expect(checkbox(before, name), name).toEqual({ present: true, checked: false });
    }

    const saved = await visitor.post("/dashboard/evidence", {
      _csrf: csrf,
      evidence_screenshot: "on",
      evidence_stream: "on",
      failure_evidence: "on",
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("Location")).toBe("/dashboard?notice=evidence-saved#evidence");
    expect(await storedDefault(account.account_id)).toEqual({ evidence_kinds: "screenshot,stream", failure_evidence: 1 });

    const after = await visitor.get("/dashboard?notice=evidence-saved");
    const html = await after.text();
    expect(html).toContain("Saved. Requests from now on keep this evidence");
    expect(checkbox(html, "evidence_screenshot").checked).toBe(true);
    expect(checkbox(html, "evidence_html").checked).toBe(false);
    expect(checkbox(html, "evidence_stream").checked).toBe(true);
    expect(checkbox(html, "failure_evidence").checked).toBe(true);

    // Every box unchecked: the browser sends none of them, and the default is none.
    expect((await visitor.post("/dashboard/evidence", { _csrf: csrf })).status).toBe(303);
    expect(await storedDefault(account.account_id)).toEqual({ evidence_kinds: "", failure_evidence: 0 });
  });

  it("refuses a value no checkbox sends with a 400 naming the field, and saves nothing", async () => {
    const account = await newAccount();
    const { visitor, csrf } = await signedInVisitor(account.account_id);
    expect((await visitor.post("/dashboard/evidence", { _csrf: csrf, evidence_html: "on" })).status).toBe(303);

    const refusedForms: Array<Record<string, string>> = [{ evidence_screenshot: "yes" }, { failure_evidence: "1" }, { evidence_html: "" }];
    for (const fields of refusedForms) {
      const refused = await visitor.post("/dashboard/evidence", { _csrf: csrf, ...fields });
      expect(refused.status, JSON.stringify(fields)).toBe(400);
      const html = await refused.text();
      expect(html).toContain("Nothing was saved");
      expect(html).toContain(Object.keys(fields)[0] ?? "");
    }
    expect(await storedDefault(account.account_id)).toEqual({ evidence_kinds: "html", failure_evidence: 0 });
  });

  it("needs the session, the same origin and this session's CSRF token", async () => {
    const account = await newAccount();
    const { visitor, csrf } = await signedInVisitor(account.account_id);
    const other = await signedInVisitor((await newAccount()).account_id);
    const asked = { evidence_screenshot: "on", failure_evidence: "on" };

    const signedOut = await new Visitor().post("/dashboard/evidence", { _csrf: csrf, ...asked });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get("Location")).toBe("/dashboard/sign-in");
    expect((await visitor.post("/dashboard/evidence", asked)).status).toBe(403);
    expect((await visitor.post("/dashboard/evidence", { _csrf: "forged", ...asked })).status).toBe(403);
    expect((await visitor.post("/dashboard/evidence", { _csrf: other.csrf, ...asked })).status).toBe(403);
    expect(
      (await visitor.post("/dashboard/evidence", { _csrf: csrf, ...asked }, { headers: { Origin: "https://evil.example" } })).status,
    ).toBe(403);
    expect(
      (await visitor.post("/dashboard/evidence", { _csrf: csrf, ...asked }, { headers: { "Sec-Fetch-Site": "cross-site" } })).status,
    ).toBe(403);
    expect(await storedDefault(account.account_id)).toEqual({ evidence_kinds: "", failure_evidence: 0 });
  });
});

describe("evidence in the playground", () => {
  it("the form offers each kind, says the account's default applies when none is checked, and the snippets send X-Evidence", async () => {
    const account = await newAccount();
    const { visitor, csrf } = await signedInVisitor(account.account_id);
    await visitor.post("/dashboard/evidence", { _csrf: csrf, evidence_html: "on" });
    const page = await (await visitor.get("/dashboard/playground")).text();
    for (const name of ["evidence_screenshot", "evidence_html", "evidence_stream"]) expect(checkbox(page, name).present, name).toBe(true);
    expect(page).toContain("your account&#39;s default applies (Page HTML;");

    const chosen = await visitor.get("/dashboard/playground/snippets?scraper=grok&prompt=Hi&evidence_screenshot=true&evidence_stream=true");
    const snippets = (await chosen.json()) as Record<"curl" | "python" | "javascript", string>;
    expect(snippets.curl).toContain(`-H 'X-Evidence: screenshot,stream'`);
    expect(snippets.python).toContain(`headers={"X-API-Key": API_KEY, "X-Evidence": "screenshot,stream"}`);
    expect(snippets.javascript).toContain(`headers: { "X-API-Key": API_KEY, "X-Evidence": "screenshot,stream" },`);

    const none = (await (await visitor.get("/dashboard/playground/snippets?scraper=grok&prompt=Hi")).json()) as Record<string, string>;
    for (const code of Object.values(none)) expect(code).not.toContain("X-Evidence");
  });
});

describe("evidence in the result viewer", () => {
  const token = "Jx3sQ0p9rM4vT7yB2nK6cH1dF8gL5wZa";
  const citedUrl = "https://en.wikipedia.org/wiki/Starship_flight_test";
  const uncitedUrl = "https://www.spacex.com/vehicles/starship/";

  async function seededRun(evidence: Record<string, unknown>): Promise<string> {
    const account = await newAccount();
    const key = await newKey(account.account_id);
    const jobId = crypto.randomUUID();
    await storePlaygroundRun(env.MARKDOWN, jobId, {
      accountId: account.account_id,
      keyId: key.key_id,
      keyName: "Production",
      createdAt: new Date().toISOString(),
      scraper: "grok",
      params: { prompt: "What is new with Starship?" },
      response: {
        scraper: "grok",
        status: "done",
        job_id: jobId,
        prompt: "What is new with Starship?",
        result: "Starship flew again.",
        result_markdown: `Starship flew again ([Wikipedia](${citedUrl})), see [the test](${citedUrl}).`,
        web_sources: [
          { title: "Starship flight test", url: citedUrl },
          { title: "SpaceX Starship", url: uncitedUrl },
        ],
        evidence,
      },
    });
    return `${account.account_id} ${jobId}`;
  }

  async function viewerHtml(seed: string): Promise<string> {
    const [accountId = "", jobId = ""] = seed.split(" ");
    const { visitor } = await signedInVisitor(accountId);
    const page = await visitor.get(`/dashboard/results/${jobId}`);
    expect(page.status).toBe(200);
    return page.text();
  }

  it("shows the screenshot and the downloads from the dashboard's own origin, and each missing kind with its reason", async () => {
    const capturedAt = new Date();
    const html = await viewerHtml(
      await seededRun({
        screenshot_url: `https://api.example.com/evidence/${token}/screenshot.png`,
        html_url: `https://api.example.com/evidence/${token}/page.html`,
        stream_url: null,
        captured_at: capturedAt.toISOString(),
        expires_at: new Date(capturedAt.getTime() + 24 * 3_600_000).toISOString(),
        missing: [{ kind: "stream", reason: "larger than the 5 MiB limit of an evidence file" }],
      }),
    );
    expect(html).toContain(`<img src="/evidence/${token}/screenshot.png"`);
    expect(html).toContain(`<a href="/evidence/${token}/screenshot.png" download="screenshot.png">`);
    expect(html).toContain(`<a href="/evidence/${token}/page.html" download="page.html">`);
    expect(html).not.toContain("stream.json");
    expect(html).toContain("not kept: larger than the 5 MiB limit of an evidence file");
    // the API's absolute URLs are in the raw JSON only, never loaded or linked
    expect(html).not.toMatch(/(src|href)="https:\/\/api\.example\.com/);
  });

  it("says expired evidence expired, with no image and no download", async () => {
    const capturedAt = new Date(Date.now() - 25 * 3_600_000);
    const html = await viewerHtml(
      await seededRun({
        screenshot_url: `https://api.example.com/evidence/${token}/screenshot.png`,
        html_url: null,
        stream_url: null,
        captured_at: capturedAt.toISOString(),
        expires_at: new Date(capturedAt.getTime() + 24 * 3_600_000).toISOString(),
        missing: [],
      }),
    );
    expect(html).toContain("This evidence expired at");
    expect(html).not.toContain("<img");
    expect(html).not.toContain(" download=");
  });

  it("links a source the answer cites to the answer's first link to it, and no other", async () => {
    const html = await viewerHtml(
      await seededRun({
        screenshot_url: null,
        html_url: null,
        stream_url: null,
        captured_at: new Date().toISOString(),
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        missing: [],
      }),
    );
    // one source is cited by the answer (twice), the other not at all: one "Show in answer" link
    const targets = [...html.matchAll(/<a class="show-in-answer" href="#([^"]+)">/g)].map((match) => match[1]);
    expect(targets).toHaveLength(1);
    const answer = /<div class="answer" data-testid="answer">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? "";
    const citations = [...answer.matchAll(/<a [^>]*>/g)].map((match) => match[0]);
    expect(citations).toHaveLength(2);
    expect(citations[0]).toContain(`href="${citedUrl}"`);
    expect(citations[0]).toContain(`id="${targets[0]}"`);
    expect(citations[1]).not.toContain("id=");
    // the id names one element of the page
    expect(html.split(`id="${targets[0]}"`)).toHaveLength(2);
  });

  it("shows a failed job's failure evidence beside its error", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id);
    const jobId = await createUnqueuedJob(
      { accountId: account.account_id, keyId: key.key_id, apiKey: key.api_key },
      { prompt: "What changed on the page?", country: "US", bypass_cache: false, timeout: 60, mode: "MODEL_MODE_AUTO" },
    );
    const capturedAt = new Date();
    await jobStub(env, jobId).fail("The Grok page did not look as expected (its layout may have changed).", {
      screenshot_url: `https://api.example.com/evidence/${token}/screenshot.png`,
      html_url: `https://api.example.com/evidence/${token}/page.html`,
      stream_url: null,
      captured_at: capturedAt.toISOString(),
      expires_at: new Date(capturedAt.getTime() + 24 * 3_600_000).toISOString(),
      missing: [],
    });
    const html = await viewerHtml(`${account.account_id} ${jobId}`);
    expect(html).toContain("Failure evidence");
    expect(html).toContain("its layout may have changed");
    expect(html).toContain(`<img src="/evidence/${token}/screenshot.png"`);
    expect(html).toContain(`<a href="/evidence/${token}/page.html" download="page.html">`);
  });
});
