/**
 * The Google AI Mode parser with a sources list the page builds itself (issue 29): fragments whose "N sites" list is in
 * a `<template>`, absent (loaded when the button opens it), localised or labelled by text only, with the entries the
 * page showed once opened (`AiModeCapture.panel`, raw as navigation reads them). And one URL rule for every field: a
 * URL is normalised the same in `result_markdown`, `citations` and `search_results`. Fragments come from the replica's
 * renderer; expected values from the scenario data (fixtures/google_ai_mode/expected.ts), never from the parser.
 * Bodies are split at byte boundaries.
 */
import { describe, expect, it } from "vitest";
import { panelEntriesHtml, renderFolwrFragment, wireUrl } from "../../replicas/google_ai_mode/fragment";
import { aiModeLayout } from "../../replicas/google_ai_mode/layouts";
import { AI_MODE_SCENARIOS, pickAiModeScenario } from "../../replicas/google_ai_mode/scenarios";
import { type AiModeVariant, NO_VARIANT } from "../../replicas/google_ai_mode/variation";
import type { StreamCapture } from "../../src/browser/page/capture/types";
import {
  type AiModeCapture,
  fragmentHasSitesButton,
  type PanelEntrySnapshot,
  parseAiModeCapture,
} from "../../src/scrapers/google_ai_mode/parse";
import { sampledSplits, utf8 } from "../support/chunk-splits";
import { expectedAnswer, expectedSearchResults } from "../fixtures/google_ai_mode/expected";

function exchangeOf(chunks: Uint8Array[]): StreamCapture {
  return {
    url: "https://www.google.com/async/folwr?q=x&udm=50&async=_fmt:adl,_xsrf:t",
    status: 200,
    contentType: "text/html; charset=UTF-8",
    requestBody: null,
    chunks,
    complete: true,
    error: null,
  };
}

function captured(chunks: Uint8Array[], panel: PanelEntrySnapshot[] | null): AiModeCapture {
  return { exchange: exchangeOf(chunks), pageCompleted: false, panel };
}

function variant(delivery: AiModeVariant["panel"]["delivery"], overrides: Partial<AiModeVariant> = {}): AiModeVariant {
  return { ...NO_VARIANT, ...overrides, panel: { ...NO_VARIANT.panel, delivery } };
}

/**
 * The entries as a page shows them: each entry's anchor read the way navigation reads it (aria-label, text, href as
 * written), here by a tiny reader of the replica's entry HTML, independent of the parser.
 */
function shownEntries(html: readonly string[]): PanelEntrySnapshot[] {
  return html.map((entry) => {
    const anchor = /<a target="_blank" rel="noopener" aria-label="([^"]*)" href="([^"]*)">(.*?)<\/a>/.exec(entry);
    if (anchor === null) throw new Error(`no anchor in ${entry}`);
    const decodeEntities = (text: string): string =>
      text
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&amp;/g, "&");
    return {
      label: decodeEntities(anchor[1] ?? ""),
      text: (anchor[3] ?? "").replace(/<[^>]+>/g, ""),
      href: decodeEntities(anchor[2] ?? ""),
    };
  });
}

describe("a sources list built by the page", () => {
  for (const layoutId of ["classic", "rotated"] as const) {
    const layout = aiModeLayout(layoutId);
    for (const scenario of AI_MODE_SCENARIOS.filter((candidate) => candidate.panel !== null)) {
      it(`${layoutId}/${scenario.id}: loaded on opening, the page's entries are the search results`, () => {
        const html = utf8(renderFolwrFragment(scenario, layout, { variant: variant("on_click") }));
        const page = shownEntries(panelEntriesHtml(scenario, layout));
        for (const chunks of sampledSplits(html, 12)) {
          const answer = parseAiModeCapture(captured(chunks, page));
          expect(answer).toEqual(expectedAnswer(scenario));
        }
        expect(fragmentHasSitesButton(exchangeOf([html]))).toBe(true);
      });
    }
  }

  it("loaded on opening but never read (no page entries): the fragment's list is empty, nothing is invented", () => {
    const scenario = pickAiModeScenario("many-sources");
    const html = utf8(renderFolwrFragment(scenario, aiModeLayout("classic"), { variant: variant("on_click") }));
    expect(parseAiModeCapture(captured([html], null)).search_results).toEqual([]);
  });

  it("in a <template>: the list is inert until the page builds it; the entries the page showed are the results", () => {
    const scenario = pickAiModeScenario("table-and-list");
    for (const layoutId of ["classic", "rotated"] as const) {
      const layout = aiModeLayout(layoutId);
      const html = utf8(renderFolwrFragment(scenario, layout, { variant: variant("template") }));
      const page = shownEntries(panelEntriesHtml(scenario, layout));
      for (const chunks of sampledSplits(html, 12)) {
        expect(parseAiModeCapture(captured(chunks, page))).toEqual(expectedAnswer(scenario));
      }
    }
  });

  it("a page list with fewer entries than the fragment's (still arriving) does not replace it", () => {
    const scenario = pickAiModeScenario("many-sources");
    const layout = aiModeLayout("classic");
    const html = utf8(renderFolwrFragment(scenario, layout));
    const partial = shownEntries(panelEntriesHtml(scenario, layout).slice(0, 3));
    expect(parseAiModeCapture(captured([html], partial)).search_results).toEqual(expectedSearchResults(scenario));
  });

  it("localised and text-only labels: the button is recognised and never leaks into the answer", () => {
    const scenario = pickAiModeScenario("deutsch");
    for (const sitesLabel of ["both", "aria", "text"] as const) {
      for (const layoutId of ["classic", "rotated"] as const) {
        const html = utf8(renderFolwrFragment(scenario, aiModeLayout(layoutId), { hl: "de", variant: variant("as_sent", { sitesLabel }) }));
        expect(new TextDecoder().decode(html)).toMatch(/2 Websites/);
        expect(fragmentHasSitesButton(exchangeOf([html])), `${layoutId}/${sitesLabel}`).toBe(true);
        expect(parseAiModeCapture(captured([html], null))).toEqual(expectedAnswer(scenario));
      }
    }
  });

  it("a fragment without a panel has no button", () => {
    const html = utf8(renderFolwrFragment(pickAiModeScenario("no-citations"), aiModeLayout("classic")));
    expect(fragmentHasSitesButton(exchangeOf([html]))).toBe(false);
  });

  it("sheet alternatives (no data-complete, either disclaimer, comments anywhere, turn wrapper or not) parse the same", () => {
    const scenario = pickAiModeScenario("duplicate-citations");
    for (const disclaimer of ["responses_may", "can_make"] as const) {
      for (const comments of ["end", "after-block"] as const) {
        for (const turnWrapper of ["present", "absent"] as const) {
          const html = utf8(
            renderFolwrFragment(scenario, aiModeLayout("rotated"), {
              variant: variant("as_sent", { dataComplete: false, disclaimer, comments, turnWrapper }),
            }),
          );
          expect(parseAiModeCapture(captured([html], null))).toEqual(expectedAnswer(scenario));
        }
      }
    }
  });
});

describe("one URL rule for every field", () => {
  it("the same URL, written as a redirect, a relative redirect or with a text fragment, comes out the same everywhere", () => {
    const url = "https://example.org/guide?x=1";
    const cases = ["redirect", "relative_redirect", "text_fragment", "redirect_text_fragment"] as const;
    for (const wire of cases) {
      const href = wireUrl(url, wire, "Guide words here").replace(/&/g, "&amp;");
      const record = JSON.stringify([["u-1", ["Guide", "s", "", "https://example.org", ["Example"], wireUrl(url, wire, "Guide words")]]]);
      const html =
        `<div data-container-id="main-col"><div data-subtree="aimc"><div>See <a href="${href}" target="_blank">the guide</a>.` +
        `<button data-icl-uuid="u-1" aria-label="Example"></button></div><div>AI responses may include mistakes.</div></div></div>` +
        `<div data-target-container-id="1"><button aria-label="1 site">1 site</button>` +
        `<a target="_blank" rel="noopener" aria-label="Guide" href="${href}"></a></div><!--Sv6Kpe${record}-->`;
      for (const chunks of sampledSplits(utf8(html), 8)) {
        const answer = parseAiModeCapture(captured(chunks, null));
        expect(answer.result_markdown, wire).toBe(`See [the guide](${url}).`);
        expect(answer.citations, wire).toEqual([{ title: "Guide", url, website_name: "Example" }]);
        expect(answer.search_results, wire).toEqual([{ title: "Guide", url }]);
      }
      // the page's own list, as read in the page, follows the same rule
      const page = parseAiModeCapture(
        captured(
          [utf8(html)],
          [
            { label: " Guide ", text: "", href: wireUrl(url, wire, "Guide") },
            { label: "Other", text: "", href: "/search?q=x" },
          ],
        ),
      );
      expect(page.search_results, wire).toEqual([{ title: "Guide", url }]);
    }
  });

  it("links to Google's own pages keep their text only, in the markdown as in the lists", () => {
    const html =
      '<div data-container-id="main-col"><div data-subtree="aimc"><div>Compare <a href="/search?q=a+vs+b&amp;udm=50">a with b</a> and ' +
      '<a href="https://www.google.com/url?q=https://www.google.com/maps&amp;sa=U">the map</a>.</div><div>AI responses may include mistakes.</div></div></div>';
    const answer = parseAiModeCapture(captured([utf8(html)], null));
    expect(answer.result_markdown).toBe("Compare a with b and the map.");
  });
});
