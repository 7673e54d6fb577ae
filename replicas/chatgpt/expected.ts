/**
 * What the API must answer for a scenario, derived from the scenario's structured data by the field mapping of
 * chatgpt.md §4 and the URL decisions of DESIGN.md — never from the wire bytes and never through the parser, so that
 * tests comparing the scraper's output against these values check the parser rather than repeat it.
 *
 * - `result_markdown`: text as is; an ordinary link as `[text](url)`; a citation marker as its `alt`
 *   (`([attribution](url))` of its first source); a widget as its `alt`, else its `prompt_text`, else nothing; a marker
 *   without a reference and stray private-use characters as nothing (removal is literal; leading blank lines and
 *   trailing whitespace are trimmed). URLs are the clean ones (no `utm_source=chatgpt.com`, no `#:~:text=`, no redirect).
 * - `result`: the plain text of that markdown as each segment's hand-written `plain` form says (scenarios.ts): a
 *   citation as `(attribution)`, a link as its text, a widget as its alt or prompt text.
 * - `links`: every hyperlink of that markdown in document order.
 * - `search_queries`: the tool messages' queries in order, without repeats.
 * - `llm_model`: `resolved_model_slug`, else `model_slug`.
 */
import type { ChatgptScenario } from "./scenarios";

export interface ExpectedChatgptFields {
  result: string;
  result_markdown: string;
  links: Array<{ text: string; url: string }>;
  search_queries: string[];
  llm_model: string;
}

export function expectedChatgptFields(scenario: ChatgptScenario, prompt: string): ExpectedChatgptFields {
  let markdown = "";
  let plain = "";
  const links: ExpectedChatgptFields["links"] = [];
  for (const segment of scenario.answer(prompt)) {
    switch (segment.kind) {
      case "text":
        markdown += segment.text;
        plain += segment.plain ?? segment.text;
        break;
      case "link":
        markdown += `[${segment.text}](${segment.url})`;
        plain += segment.text;
        links.push({ text: segment.text, url: segment.url });
        break;
      case "cite": {
        const first = segment.refs[0];
        const cited = first === undefined ? undefined : scenario.searches[first.search]?.sources[first.index];
        if (cited === undefined) break;
        markdown += `([${cited.attribution}](${cited.url}))`;
        plain += `(${cited.attribution})`;
        links.push({ text: cited.attribution, url: cited.url });
        break;
      }
      case "widget":
        markdown += segment.alt !== "" ? segment.alt : (segment.promptText ?? "");
        plain += segment.alt !== "" ? segment.alt : (segment.promptText ?? "");
        break;
      case "orphan":
      case "stray":
        break;
    }
  }
  const queries = scenario.searches.flatMap((search) => search.queries);
  return {
    result: plain.replace(/^(?:[ \t]*\n)+/, "").trimEnd(),
    result_markdown: markdown.replace(/^(?:[ \t]*\n)+/, "").trimEnd(),
    links,
    search_queries: [...new Set(queries)],
    llm_model: scenario.resolvedModelSlug ?? scenario.modelSlug,
  };
}
