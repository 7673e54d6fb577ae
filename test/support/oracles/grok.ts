/**
 * What a Grok scrape of each replica scenario must return, written by hand from the scenario data
 * (replicas/grok/scenarios.ts) and providers/grok.md §4, never by the code under test. `result_markdown` and `result`
 * are written out here: citation tags become `[n](url)` where n is the url's position in `web_sources` (or the next
 * number for a url that is not a web source), unresolved and image tags go away; `result` is the plain text a reader
 * sees (markers dropped, `[n]` kept, list markers kept, table cells tab-separated, code verbatim).
 */
import {
  GROK_DEFAULT_SOURCES,
  GROK_SCENARIOS,
  LONG_TOPICS,
  pickGrokScenario,
  type GrokScenario,
  type GrokWebSearchResult,
  type GrokXPost,
} from "../../../replicas/grok/scenarios";
import type { OracleCase, ProviderOracle } from "./oracle";

export type GrokMode = "MODEL_MODE_AUTO" | "MODEL_MODE_FAST" | "MODEL_MODE_EXPERT";
const MODE_IDS: Record<GrokMode, string> = { MODEL_MODE_AUTO: "auto", MODEL_MODE_FAST: "fast", MODEL_MODE_EXPERT: "expert" };

function scenario(id: string): GrokScenario {
  const found = GROK_SCENARIOS.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`grok oracle: no scenario ${id}`);
  return found;
}

/** §4 web_sources: the final list, else the streamed union (by url, first seen); preview null when empty or missing. */
function webSources(data: GrokScenario): { title: string; url: string; preview: string | null }[] {
  const list: readonly GrokWebSearchResult[] =
    data.webSearchResults.length > 0 ? data.webSearchResults : data.streamedWebSearchResults.flat();
  const seen = new Set<string>();
  return list.flatMap((source) => {
    if (seen.has(source.url)) return [];
    seen.add(source.url);
    return [
      { title: source.title, url: source.url, preview: source.preview === undefined || source.preview === "" ? null : source.preview },
    ];
  });
}

/**
 * The API writes every time field as UTC with milliseconds and a `+00:00` offset; the replica sends Grok's `…Z` form,
 * with or without milliseconds, or an empty string.
 */
function apiTime(providerTime: string): string | null {
  return providerTime === "" ? null : new Date(providerTime).toISOString().replace(/Z$/, "+00:00");
}

/** §4 social_results: `@` stripped, views as an integer (absent → 0), empty image/time → null. */
function socialResults(data: GrokScenario): unknown[] {
  const posts: readonly GrokXPost[] = data.xposts ?? [
    ...new Map(data.streamedXSearchResults.flat().map((post) => [post.postId, post])).values(),
  ];
  return posts.map((post) => ({
    post_id: post.postId,
    user_name: post.username.replace(/^@/, ""),
    name: post.name,
    text: post.text,
    view_count: post.viewCount === undefined ? 0 : Number(post.viewCount),
    profile_image_url: post.profileImageUrl === undefined || post.profileImageUrl === "" ? null : post.profileImageUrl,
    create_time: apiTime(post.createTime),
  }));
}

function conversation(data: GrokScenario): unknown {
  if (data.conversation === null) return null;
  return {
    conversation_id: data.conversation.conversationId,
    title: data.newTitle ?? data.conversation.title,
    temporary: data.conversation.temporary,
    create_time: apiTime(data.conversation.createTime),
    modify_time: apiTime(data.conversation.modifyTime),
  };
}

function expected(data: GrokScenario, mode: GrokMode, markdown: string, plain: string): Record<string, unknown> {
  return {
    mode,
    result_markdown: markdown,
    result: plain,
    web_sources: webSources(data),
    social_results: socialResults(data),
    related_questions: data.followUpSuggestions ?? [],
    conversation: conversation(data),
    llm_model: data.includeModel ? `grok-4-${MODE_IDS[mode]}` : null,
  };
}

function lines(...text: string[]): string {
  return text.join("\n");
}

/** The long answer's markdown and plain text, section by section as scenarios.ts lays it out (written independently). */
function longAnswer(): { markdown: string; plain: string } {
  const topics = LONG_TOPICS;
  const urls = ["https://en.wikipedia.org/wiki/History_of_computing", "https://www.computerhistory.org/timeline/"];
  const markdown: string[] = ["# A long history of computing"];
  const plain: string[] = ["A long history of computing"];
  for (let n = 1; n <= 40; n += 1) {
    const topic = topics[(n - 1) % topics.length] ?? "";
    const cited = (n - 1) % 2;
    const paragraph = (marker: string) =>
      `Section ${n} looks at ${topic}. Each generation of machines made computation cheaper, faster and more reliable than the one before it, ` +
      `and ${topic} changed who could build and use computers${marker}. ` +
      "Engineers traded size for speed, then speed for power efficiency, and finally power efficiency for ubiquity. " +
      `The paragraph is deliberately long so that the whole answer exceeds thirty kilobytes of markdown (part ${n} of 40).`;
    const items = [
      `- Key idea ${n}.1: ${topic} reduced the cost per operation.`,
      `- Key idea ${n}.2: ${topic} changed programming practice.`,
      `  - Nested detail ${n}.2.1: tooling followed the hardware.`,
      `- Key idea ${n}.3: ${topic} opened new markets.`,
    ];
    markdown.push(`## ${n}. Era of ${topic}`, paragraph(`[${cited + 1}](${urls[cited]})`), items.join("\n"));
    plain.push(`${n}. Era of ${topic}`, paragraph(`[${cited + 1}]`), items.join("\n"));
    if (n % 6 === 0) {
      markdown.push(
        lines(
          "| Metric | Before | After |",
          "|---|---:|---:|",
          `| Ops per second | ${n}k | ${n * 10}k |`,
          `| Cost per op | $${n}.00 | $0.${n} |`,
        ),
      );
      plain.push(lines("Metric\tBefore\tAfter", `Ops per second\t${n}k\t${n * 10}k`, `Cost per op\t$${n}.00\t$0.${n}`));
    }
    if (n % 9 === 0) {
      markdown.push(lines("```python", `def era_${n}(ops: int) -> float:`, `    return ops / ${n}.0`, "```"));
      plain.push(lines(`def era_${n}(ops: int) -> float:`, `    return ops / ${n}.0`));
    }
  }
  markdown.push("That concludes the overview.");
  plain.push("That concludes the overview.");
  return { markdown: markdown.join("\n\n"), plain: plain.join("\n\n") };
}

/** The default scenario's answer for `prompt` (a prompt that names no trigger). */
function defaultCase(id: string, prompt: string, mode: GrokMode): OracleCase {
  const [wiki, britannica] = GROK_DEFAULT_SOURCES;
  return {
    id,
    params: { prompt, mode },
    expected: {
      mode,
      result_markdown: lines(
        `You asked: "${prompt}".`,
        "",
        `This is the replica's default answer. It cites an encyclopedia[1](${wiki?.url}) and a second reference[2](${britannica?.url}).`,
        "",
        "- It has **bold** text and a list.",
        "- It has no posts from X.",
      ),
      result: lines(
        `You asked: "${prompt}".`,
        "",
        "This is the replica's default answer. It cites an encyclopedia[1] and a second reference[2].",
        "",
        "- It has bold text and a list.",
        "- It has no posts from X.",
      ),
      web_sources: GROK_DEFAULT_SOURCES.map((source) => ({ title: source.title, url: source.url, preview: source.preview ?? null })),
      social_results: [],
      related_questions: ["Tell me more", "Give me an example"],
      // title: the prompt (its first 50 characters), as the default scenario names it
      conversation: {
        conversation_id: "6a1f0c2e-5b7d-4e8a-9c3f-000000000000",
        title: prompt,
        temporary: false,
        create_time: "2026-03-01T09:26:53.589+00:00",
        modify_time: "2026-03-01T09:26:53.589+00:00",
      },
      llm_model: `grok-4-${MODE_IDS[mode]}`,
    },
  };
}

function triggered(id: string, prompt: string, mode: GrokMode, markdown: string, plain: string): OracleCase {
  return { id, params: { prompt, mode }, expected: expected(scenario(id), mode, markdown, plain) };
}

export function grokCases(): OracleCase[] {
  const long = longAnswer();
  return [
    triggered(
      "no-posts",
      "no-posts: how does photosynthesis work?",
      "MODEL_MODE_FAST",
      lines(
        "**Photosynthesis** turns light energy into chemical energy stored in glucose[1](https://en.wikipedia.org/wiki/Photosynthesis).",
        "",
        "It happens in two stages:",
        "",
        "1. **Light-dependent reactions** in the thylakoid membranes split water and release oxygen[2](https://www.britannica.com/science/photosynthesis).",
        "2. **The Calvin cycle** in the stroma fixes carbon dioxide into sugars[3](https://www.nationalgeographic.org/encyclopedia/photosynthesis/).",
        "",
        "The overall equation is `6CO2 + 6H2O + light → C6H12O6 + 6O2`.",
      ),
      lines(
        "Photosynthesis turns light energy into chemical energy stored in glucose[1].",
        "",
        "It happens in two stages:",
        "",
        "1. Light-dependent reactions in the thylakoid membranes split water and release oxygen[2].",
        "2. The Calvin cycle in the stroma fixes carbon dioxide into sugars[3].",
        "",
        "The overall equation is 6CO2 + 6H2O + light → C6H12O6 + 6O2.",
      ),
    ),
    // the prompt of test/fixtures/captures/grok/what-do-people-say-about-the-launch-many-posts-us.json
    triggered(
      "many-posts",
      "What do people say about the launch? many-posts",
      "MODEL_MODE_AUTO",
      lines(
        "Reactions on X to Starship flight 12 were overwhelmingly positive[1](https://www.spacex.com/launches/starship-flight-12).",
        "",
        // x.com urls are not web sources: the numbers after the one web source
        "- Spectators praised the view of the liftoff[2](https://x.com/astro_ana/status/1901000000000000001).",
        "- The booster catch drew the most attention[3](https://x.com/tower_cam/status/1901000000000000011).",
        "- Several accounts noted the heat shield performed better than on the previous flight.",
      ),
      lines(
        "Reactions on X to Starship flight 12 were overwhelmingly positive[1].",
        "",
        "- Spectators praised the view of the liftoff[2].",
        "- The booster catch drew the most attention[3].",
        "- Several accounts noted the heat shield performed better than on the previous flight.",
      ),
    ),
    triggered(
      "many-posts",
      "many-posts in expert mode",
      "MODEL_MODE_EXPERT",
      lines(
        "Reactions on X to Starship flight 12 were overwhelmingly positive[1](https://www.spacex.com/launches/starship-flight-12).",
        "",
        "- Spectators praised the view of the liftoff[2](https://x.com/astro_ana/status/1901000000000000001).",
        "- The booster catch drew the most attention[3](https://x.com/tower_cam/status/1901000000000000011).",
        "- Several accounts noted the heat shield performed better than on the previous flight.",
      ),
      lines(
        "Reactions on X to Starship flight 12 were overwhelmingly positive[1].",
        "",
        "- Spectators praised the view of the liftoff[2].",
        "- The booster catch drew the most attention[3].",
        "- Several accounts noted the heat shield performed better than on the previous flight.",
      ),
    ),
    triggered(
      "web-sources-only",
      "web-sources-only: what is Python?",
      "MODEL_MODE_FAST",
      lines(
        "# Python",
        "",
        "Python is an interpreted, high-level, general-purpose programming language[1](https://www.python.org/doc/essays/blurb/).",
        // the Wikipedia page is the third web source
        "Its design emphasises code readability with significant indentation[3](https://en.wikipedia.org/wiki/Python_(programming_language)).",
      ),
      lines(
        "Python",
        "",
        "Python is an interpreted, high-level, general-purpose programming language[1].",
        "Its design emphasises code readability with significant indentation[3].",
      ),
    ),
    triggered(
      "unicode-emoji",
      "unicode-emoji 🚀 test",
      "MODEL_MODE_AUTO",
      lines(
        "## 🚀 Rocket in many scripts",
        "",
        "- 日本語: ロケットの打ち上げは成功しました[1](https://ja.wikipedia.org/wiki/%E3%83%AD%E3%82%B1%E3%83%83%E3%83%88)。",
        "- 中文：火箭发射成功，助推器已回收。",
        "- 한국어: 로켓 발사가 성공했습니다.",
        "- עברית: שיגור הרקטה הצליח.",
        "- العربية: نجح إطلاق الصاروخ[2](https://ar.wikipedia.org/wiki/%D8%B5%D8%A7%D8%B1%D9%88%D8%AE).",
        "- Ελληνικά: Η εκτόξευση ήταν επιτυχής.",
        "",
        "Families and flags: 👩‍👩‍👧 👨‍👩‍👧‍👦 🇯🇵 🇸🇦 👍🏽 — math: 𝐀𝐁𝐂 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 — combining: e\u0301te\u0301 (café vs cafe\u0301).",
        "",
        "Emoji at the very end 🛰️🌍🪐",
      ),
      lines(
        "🚀 Rocket in many scripts",
        "",
        "- 日本語: ロケットの打ち上げは成功しました[1]。",
        "- 中文：火箭发射成功，助推器已回收。",
        "- 한국어: 로켓 발사가 성공했습니다.",
        "- עברית: שיגור הרקטה הצליח.",
        "- العربية: نجح إطلاق الصاروخ[2].",
        "- Ελληνικά: Η εκτόξευση ήταν επιτυχής.",
        "",
        "Families and flags: 👩‍👩‍👧 👨‍👩‍👧‍👦 🇯🇵 🇸🇦 👍🏽 — math: 𝐀𝐁𝐂 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 — combining: e\u0301te\u0301 (café vs cafe\u0301).",
        "",
        "Emoji at the very end 🛰️🌍🪐",
      ),
    ),
    triggered(
      "citation-tags",
      "citation-tags check",
      "MODEL_MODE_EXPERT",
      lines(
        "Falcon 9 is a partially reusable two-stage rocket[1](https://www.spacex.com/vehicles/falcon-9/). Its first stage has landed more than 400 times[2](https://en.wikipedia.org/wiki/Falcon_9) and single boosters have flown up to 30 times[1](https://www.spacex.com/vehicles/falcon-9/)[3](https://spaceflightnow.com/launch-schedule/).",
        "",
        "A landing seen from the drone ship:",
        "",
        // the image card's line goes with one of the blank lines around it; the unresolved card_id leaves nothing
        "Some figures could not be confirmed.",
      ),
      lines(
        "Falcon 9 is a partially reusable two-stage rocket[1]. Its first stage has landed more than 400 times[2] and single boosters have flown up to 30 times[1][3].",
        "",
        "A landing seen from the drone ship:",
        "",
        "Some figures could not be confirmed.",
      ),
    ),
    triggered(
      "thinking-tokens",
      "thinking-tokens first",
      "MODEL_MODE_EXPERT",
      lines(
        "**Switch.** Switching doors wins the car with probability 2/3[1](https://en.wikipedia.org/wiki/Monty_Hall_problem).",
        "",
        "| Your first pick | Host opens | Switching gives |",
        "|---|---|---|",
        "| Car | a goat | a goat |",
        "| Goat A | goat B | the car |",
        "| Goat B | goat A | the car |",
      ),
      lines(
        "Switch. Switching doors wins the car with probability 2/3[1].",
        "",
        "Your first pick\tHost opens\tSwitching gives",
        "Car\ta goat\ta goat",
        "Goat A\tgoat B\tthe car",
        "Goat B\tgoat A\tthe car",
      ),
    ),
    triggered(
      "key-citations",
      "key-citations about Artemis II",
      "MODEL_MODE_FAST",
      lines(
        "### Artemis II",
        "",
        "- **Crew:** four astronauts on a lunar flyby.",
        "- **Vehicle:** the Space Launch System with the Orion capsule.",
        "- **Service module:** built by ESA.",
        "",
        "**Key Citations:**",
        "- [Artemis II - NASA](https://www.nasa.gov/mission/artemis-ii/)",
        "- [ESA - Orion](https://www.esa.int/Science_Exploration/Human_and_Robotic_Exploration/Orion)",
      ),
      lines(
        "Artemis II",
        "",
        "- Crew: four astronauts on a lunar flyby.",
        "- Vehicle: the Space Launch System with the Orion capsule.",
        "- Service module: built by ESA.",
        "",
        "Key Citations:",
        "",
        "- Artemis II - NASA",
        "- ESA - Orion",
      ),
    ),
    triggered(
      "null-optional-fields",
      "null-optional-fields",
      "MODEL_MODE_FAST",
      "Tides are caused mainly by the Moon's gravity acting on the oceans.",
      "Tides are caused mainly by the Moon's gravity acting on the oceans.",
    ),
    triggered(
      "no-conversation-line",
      "no-conversation-line",
      "MODEL_MODE_AUTO",
      "Water boils at **100 °C** (212 °F) at sea level.",
      "Water boils at 100 °C (212 °F) at sea level.",
    ),
    triggered(
      "no-response-wrapper",
      "no-response-wrapper",
      "MODEL_MODE_AUTO",
      "Light travels at exactly 299,792,458 m/s in vacuum[1](https://example.com/speed-of-light).",
      "Light travels at exactly 299,792,458 m/s in vacuum[1].",
    ),
    triggered(
      "skip-malformed-line",
      "skip-malformed-line",
      "MODEL_MODE_EXPERT",
      "Jupiter is the largest planet in the Solar System, more than twice as massive as all the others combined.",
      "Jupiter is the largest planet in the Solar System, more than twice as massive as all the others combined.",
    ),
    triggered("long-answer", "long-answer", "MODEL_MODE_AUTO", long.markdown, long.plain),
    triggered(
      "xai-artifact",
      "xai-artifact",
      "MODEL_MODE_AUTO",
      lines(
        "Here is the checklist you asked for.",
        "",
        "# Launch checklist",
        "",
        "1. Propellant load complete",
        "2. Range is green",
        "3. Flight termination system armed",
        "",
        "And a countdown helper:",
        "",
        "```python",
        "def countdown(n: int) -> None:",
        "    for i in range(n, 0, -1):",
        "        print(i)",
        '    print("Liftoff")',
        "```",
      ),
      lines(
        "Here is the checklist you asked for.",
        "",
        "Launch checklist",
        "",
        "1. Propellant load complete",
        "2. Range is green",
        "3. Flight termination system armed",
        "",
        "And a countdown helper:",
        "",
        "def countdown(n: int) -> None:",
        "    for i in range(n, 0, -1):",
        "        print(i)",
        '    print("Liftoff")',
      ),
    ),
    defaultCase("default", "Who designed the Eiffel Tower?", "MODEL_MODE_AUTO"),
    // the prompt of test/fixtures/captures/grok/what-is-new-with-starship-us-mode-model-mode-fast.json
    defaultCase("default", "What is new with Starship?", "MODEL_MODE_FAST"),
  ];
}

/**
 * The expected fields for any prompt and mode (the e2e tests' layouts and modes): the oracle case of the scenario the
 * prompt selects, with the mode's own fields.
 */
export function grokExpectation(prompt: string, mode: GrokMode): Record<string, unknown> {
  const id = pickGrokScenario(prompt).id;
  if (id === "default") return defaultCase("default", prompt, mode).expected;
  const known = grokCases().find((candidate) => candidate.id === id);
  if (known === undefined) throw new Error(`grok oracle: no case for ${id}`);
  const data = scenario(id);
  return { ...known.expected, mode, llm_model: data.includeModel ? `grok-4-${MODE_IDS[mode]}` : null };
}

export const grokOracle: ProviderOracle = { provider: "grok", cases: grokCases };
