import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ServiceError } from "../../src/errors";
import type { GrokAnswer } from "../../src/scrapers/grok/declaration";
import { parseGrokCapture } from "../../src/scrapers/grok/parse";
import type { StreamCapture } from "../../src/browser/page/capture/types";

// ---------------------------------------------------------------------------------------------------------------
// Helpers

const FIXTURES = new URL("../fixtures/grok/", import.meta.url);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`${name}.ndjson`, FIXTURES)));
}

function capture(body: Uint8Array | string, overrides: Partial<StreamCapture> = {}): StreamCapture {
  return {
    url: "https://grok.com/rest/app-chat/conversations/new",
    status: 200,
    contentType: "application/json",
    requestBody: '{"temporary":false,"modeId":"auto","message":"prompt"}',
    chunks: [typeof body === "string" ? encoder.encode(body) : body],
    complete: true,
    error: null,
    ...overrides,
  };
}

type Outcome = { answer: GrokAnswer } | { error: { name: string; status: number; detail: string; retryable: boolean } };

function concatChunks(chunks: readonly Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.length;
  }
  return joined;
}

function outcome(input: StreamCapture): Outcome {
  try {
    return { answer: parseGrokCapture(input) };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { error: { name: error.name, status: error.status, detail: error.detail, retryable: error.retryable } };
  }
}

function failure(input: StreamCapture): { name: string; status: number; detail: string; retryable: boolean } {
  const result = outcome(input);
  if (!("error" in result)) throw new Error("expected the parse to fail");
  return result.error;
}

/** Re-serialises a fixture after editing its lines (JSON objects; unparseable lines are kept as text). */
function editFixture(name: string, edit: (lines: unknown[]) => unknown[]): string {
  const lines = decoder
    .decode(fixture(name))
    .split("\n")
    .filter((line) => line !== "")
    .map((line): unknown => {
      try {
        return JSON.parse(line);
      } catch {
        return line;
      }
    });
  return (
    edit(lines)
      .map((line) => (typeof line === "string" ? line : JSON.stringify(line)))
      .join("\n") + "\n"
  );
}

function hasPath(line: unknown, ...path: string[]): boolean {
  let node: unknown = line;
  for (const key of path) {
    if (typeof node !== "object" || node === null || !(key in node)) return false;
    node = Reflect.get(node, key);
  }
  return true;
}

/** Deterministic PRNG (mulberry32) so that "random" splits are the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function cut(data: Uint8Array, boundaries: number[]): Uint8Array[] {
  const sorted = [...new Set(boundaries)].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const at of sorted) {
    chunks.push(data.subarray(start, at));
    start = at;
  }
  chunks.push(data.subarray(start));
  return chunks;
}

/** Boundaries inside multi-byte UTF-8 sequences (before a continuation byte), the nastiest places to cut. */
function insideCharacters(data: Uint8Array): number[] {
  const positions: number[] = [];
  data.forEach((byte, index) => {
    if ((byte & 0xc0) === 0x80) positions.push(index);
  });
  return positions;
}

interface ChunkingPlan {
  /** Bodies up to this size are cut in two at every boundary. */
  everyBoundaryUpTo: number;
  /** Larger bodies: at most this many two-way cuts, spread evenly over each kind of risky boundary. */
  sampledCuts: number;
  randomRounds: number;
}

const SMALL_BODIES: ChunkingPlan = { everyBoundaryUpTo: 8_192, sampledCuts: 3_000, randomRounds: 150 };

function evenly(positions: number[], count: number): number[] {
  if (positions.length <= count) return positions;
  return Array.from({ length: count }, (_, index) => positions[Math.floor((index * positions.length) / count)] ?? 0);
}

/**
 * Chunkings of `data`: one chunk per byte; two chunks at every boundary (small bodies) or, for large ones, at
 * boundaries inside characters, around line ends and at a stride; and seeded random multi-chunk cuts, half of whose
 * cuts land inside a multi-byte character.
 */
function chunkings(data: Uint8Array, seed: number, plan: ChunkingPlan): Uint8Array[][] {
  const result: Uint8Array[][] = [Array.from(data, (byte) => Uint8Array.of(byte))];
  const inside = insideCharacters(data);
  const twoWay: number[] = [];
  if (data.length <= plan.everyBoundaryUpTo) {
    for (let at = 0; at <= data.length; at += 1) twoWay.push(at);
  } else {
    const lineEnds: number[] = [];
    data.forEach((byte, index) => {
      if (byte === 0x0a) lineEnds.push(index - 1, index, index + 1, index + 2);
    });
    const stride = Array.from({ length: data.length + 1 }, (_, at) => at);
    const share = Math.floor(plan.sampledCuts / 3);
    twoWay.push(...evenly(inside, share), ...evenly(lineEnds, share), ...evenly(stride, share));
  }
  for (const at of new Set(twoWay)) if (at >= 0 && at <= data.length) result.push(cut(data, [at]));
  const next = random(seed);
  for (let round = 0; round < plan.randomRounds; round += 1) {
    const count = 2 + Math.floor(next() * 12);
    const boundaries = Array.from({ length: count }, () =>
      inside.length > 0 && next() < 0.5 ? (inside[Math.floor(next() * inside.length)] ?? 0) : Math.floor(next() * (data.length + 1)),
    );
    result.push(cut(data, boundaries));
  }
  return result;
}

function expectSameForEveryChunking(data: Uint8Array, overrides: Partial<StreamCapture>, seed: number, plan = SMALL_BODIES): void {
  const expected = JSON.stringify(outcome(capture(data, overrides)));
  const mismatches: string[] = [];
  for (const chunks of chunkings(data, seed, plan)) {
    const actual = JSON.stringify(outcome({ ...capture(data, overrides), chunks }));
    if (actual !== expected) mismatches.push(chunks.map((chunk) => chunk.length).join("+"));
  }
  expect(mismatches).toEqual([]);
}

// ---------------------------------------------------------------------------------------------------------------
// Expected answers, field by field

const IMG = "https://pbs.twimg.com/profile_images/1683325380441128960/yRsRRjGO_normal.jpg";

const EXPECTED: Record<string, GrokAnswer> = {
  "no-posts": {
    result:
      "The capital of Australia is Canberra.[1] It was chosen in 1908 as a compromise between Sydney and Melbourne.[2]\n\n" +
      "Canberra lies in the Australian Capital Territory (ACT).[3]",
    result_markdown:
      "The capital of Australia is **Canberra**.[1](https://en.wikipedia.org/wiki/Canberra) It was chosen in 1908 as a compromise between Sydney and Melbourne.[2](https://www.nma.gov.au/defining-moments/resources/canberra)\n\n" +
      "Canberra lies in the Australian Capital Territory (ACT).[3](https://www.britannica.com/place/Australian-Capital-Territory)",
    web_sources: [
      {
        title: "Canberra - Wikipedia",
        url: "https://en.wikipedia.org/wiki/Canberra",
        preview:
          "Canberra is the capital city of Australia. Founded following the federation of the colonies of Australia as the seat of government for the new nation…",
      },
      {
        title: "Founding of Canberra | National Museum of Australia",
        url: "https://www.nma.gov.au/defining-moments/resources/canberra",
        preview: "In 1908 the site of Canberra was chosen as a compromise between Sydney and Melbourne.",
      },
      {
        title: "Australian Capital Territory | Britannica",
        url: "https://www.britannica.com/place/Australian-Capital-Territory",
        preview: "Australian Capital Territory, federal district of the Commonwealth of Australia.",
      },
    ],
    social_results: [],
    related_questions: ["Why was Canberra chosen as the capital?", "What is the population of Canberra?"],
    conversation: {
      conversation_id: "0b6c8f3e-5d2a-4f1b-9c7e-3a8d2e1f4b60",
      title: "Capital of Australia",
      temporary: false,
      create_time: "2026-03-14T09:26:53.589+00:00",
      modify_time: "2026-03-14T09:26:53.589+00:00",
    },
    llm_model: null,
  },

  "many-posts": {
    result:
      "Reactions on X to Starship Flight 7 are overwhelmingly positive:\n\n" +
      "- SpaceX confirmed liftoff at 5:37 p.m. CT.[2]\n" +
      "- Elon Musk celebrated the booster catch.[3]\n" +
      "- NASASpaceflight reported the ship splashdown.[4][1]\n\n" +
      "Some users highlighted the changed flight profile.[5] Others are already looking ahead to Flight 8.[2]",
    result_markdown:
      "Reactions on X to Starship Flight 7 are overwhelmingly positive:\n\n" +
      "- **SpaceX** confirmed liftoff at 5:37 p.m. CT.[2](https://x.com/SpaceX/status/1900112233445566771)\n" +
      "- Elon Musk celebrated the booster catch.[3](https://x.com/elonmusk/status/1900112233445566772)\n" +
      "- NASASpaceflight reported the ship splashdown.[4](https://x.com/NASASpaceflight/status/1900112233445566773)[1](https://www.spacex.com/launches/starship-flight-7)\n\n" +
      "Some users highlighted the changed flight profile.[5](https://x.com/Erdayastronaut/status/1900112233445566774) Others are already looking ahead to Flight 8.[2](https://x.com/SpaceX/status/1900112233445566771)",
    web_sources: [
      {
        title: "Starship Flight 7 | SpaceX",
        url: "https://www.spacex.com/launches/starship-flight-7",
        preview: "Starship's seventh flight test.",
      },
    ],
    social_results: [
      {
        post_id: "1900112233445566771",
        user_name: "SpaceX",
        name: "SpaceX",
        text: "Starship's seventh flight test lifted off at 5:37 p.m. CT 🚀",
        view_count: 4823112,
        profile_image_url: IMG,
        create_time: "2026-03-12T22:37:10.000+00:00",
      },
      {
        post_id: "1900112233445566772",
        user_name: "elonmusk",
        name: "Elon Musk",
        text: "Catch! 🦾",
        view_count: 12045998,
        profile_image_url: "https://pbs.twimg.com/profile_images/1815749056821346304/jS8I28PL_normal.jpg",
        create_time: "2026-03-12T22:44:02.000+00:00",
      },
      {
        post_id: "1900112233445566773",
        user_name: "NASASpaceflight",
        name: "NSF - NASASpaceflight.com",
        text: "Booster caught by the chopsticks again. Ship splashdown confirmed in the Indian Ocean.",
        view_count: 903221,
        profile_image_url: null,
        create_time: "2026-03-12T23:41:55.000+00:00",
      },
      {
        post_id: "1900112233445566774",
        user_name: "Erdayastronaut",
        name: "Everyday Astronaut",
        text: "Incredible flight profile today.\nFull recap tomorrow.",
        view_count: 88412,
        profile_image_url: null,
        create_time: "2026-03-13T00:12:31.000+00:00",
      },
      {
        post_id: "1900112233445566775",
        user_name: "SciGuySpace",
        name: "Eric Berger",
        text: "Notable: the ship relit a Raptor in space before reentry.",
        view_count: 0,
        profile_image_url: "https://pbs.twimg.com/profile_images/1484243342430867458/zXe6a1xP_normal.jpg",
        create_time: "2026-03-13T01:03:09.000+00:00",
      },
      {
        post_id: "1900112233445566776",
        user_name: "spacexcentric",
        name: "SpaceXcentric",
        text: "Replay of the catch from the tower camera.",
        view_count: 0,
        profile_image_url: IMG,
        create_time: "2026-03-13T01:30:00.000+00:00",
      },
      {
        post_id: "1900112233445566777",
        user_name: "BocaChicaGal",
        name: "Mary (BocaChicaGal)",
        text: "Chopsticks did it again 🥢",
        view_count: 0,
        profile_image_url: IMG,
        create_time: "2026-03-13T02:15:47.000+00:00",
      },
      {
        post_id: "1900112233445566778",
        user_name: "ajtourville",
        name: "Alex Tourville",
        text: "Flight 8 hardware is already rolling to the pad.",
        view_count: 77001,
        profile_image_url: IMG,
        create_time: "2026-03-13T03:20:18.000+00:00",
      },
      {
        post_id: "1900112233445566779",
        user_name: "SpaceflightNow",
        name: "Spaceflight Now",
        text: "Launch replay and full webcast archive.",
        view_count: 0,
        profile_image_url: IMG,
        create_time: "2026-03-13T04:00:00.000+00:00",
      },
      {
        post_id: "1900112233445566780",
        user_name: "TheFavoritist",
        name: "Felix Schlang",
        text: "What an insane day for spaceflight.",
        view_count: 1000000,
        profile_image_url: IMG,
        create_time: "2026-03-13T05:45:12.000+00:00",
      },
      {
        post_id: "1900112233445566781",
        user_name: "RGVaerialphotos",
        name: "RGV Aerial Photography",
        text: "Aerial view of the pad after the catch.",
        view_count: 250000,
        profile_image_url: null,
        create_time: "2026-03-13T06:10:44.000+00:00",
      },
      {
        post_id: "1900112233445566782",
        user_name: "starbase_news",
        name: "Starbase News",
        text: "Road closures announced for the next static fire.",
        view_count: 3141,
        profile_image_url: IMG,
        create_time: null,
      },
    ],
    related_questions: ["What happened to the ship during reentry?", "When is Starship Flight 8?", "How does the chopstick catch work?"],
    conversation: {
      conversation_id: "d41f7a2b-96c3-4e58-b1a0-7c2e9f3d5a18",
      title: "Starship Flight 7 reactions on X",
      temporary: false,
      create_time: "2026-03-13T07:02:11.402+00:00",
      modify_time: "2026-03-13T07:02:11.402+00:00",
    },
    llm_model: "grok-4",
  },

  "web-sources-only": {
    result:
      "To renew a US passport by mail:\n\n" +
      "1. Fill out Form DS-82.[1]\n" +
      "2. Include your most recent passport and a new photo.\n" +
      "3. Pay the fee by check or money order and mail everything to the address on the form.[3]\n\n" +
      "Routine processing takes about 4–6 weeks.",
    result_markdown:
      "To renew a US passport by mail:\n\n" +
      "1. Fill out **Form DS-82**.[1](https://travel.state.gov/content/travel/en/passports/have-passport/renew.html)\n" +
      "2. Include your most recent passport and a new photo.\n" +
      "3. Pay the fee by check or money order and mail everything to the address on the form.[3](https://www.usa.gov/renew-adult-passport)\n\n" +
      "Routine processing takes about 4–6 weeks.",
    web_sources: [
      {
        title: "Renew my Passport by Mail",
        url: "https://travel.state.gov/content/travel/en/passports/have-passport/renew.html",
        preview: "You can renew by mail if your most recent passport was issued when you were 16 or older.",
      },
      { title: "USPS", url: "https://www.usps.com/international/passports.htm", preview: null },
      { title: "Renew an adult passport | USAGov", url: "https://www.usa.gov/renew-adult-passport", preview: null },
    ],
    social_results: [],
    related_questions: ["How much does a passport renewal cost?"],
    conversation: {
      conversation_id: "7e3d9c1a-2b4f-4a6e-8d0c-5f1e3a7b9c2d",
      title: "Renewing a US passport by mail",
      temporary: false,
      create_time: "2026-02-02T18:40:07.115+00:00",
      modify_time: "2026-02-02T18:40:07.115+00:00",
    },
    llm_model: null,
  },

  "unicode-emoji": {
    result:
      "こんにちは 👋\n\nHello in many languages:\n\n" +
      "- 日本語: こんにちは\n- 中文: 你好\n- Ελληνικά: Γειά σου\n- العربية: مرحبا\n- עברית: שלום\n- हिन्दी: नमस्ते\n- Français: Bonjour 🇫🇷\n\n" +
      "Family emoji 👨‍👩‍👧‍👦, astral math 𝕏𝒜𝔹, rare CJK 𠜎𠝹, combining cafe\u0301.[1][2]",
    result_markdown:
      "# こんにちは 👋\n\nHello in many languages:\n\n" +
      "- 日本語: こんにちは\n- 中文: 你好\n- Ελληνικά: Γειά σου\n- العربية: مرحبا\n- עברית: שלום\n- हिन्दी: नमस्ते\n- Français: Bonjour 🇫🇷\n\n" +
      "Family emoji 👨‍👩‍👧‍👦, astral math 𝕏𝒜𝔹, rare CJK 𠜎𠝹, combining cafe\u0301.[1](https://unicode.org/emoji/charts/full-emoji-list.html)[2](https://x.com/unicode_fan/status/1900223344556677881)",
    web_sources: [
      {
        title: "Unicode® Emoji — 🌍 Full list",
        url: "https://unicode.org/emoji/charts/full-emoji-list.html",
        preview: "Emoji 15.1 … 🫨 shaking face, 🪿 goose, 𝕏 math letters.",
      },
    ],
    social_results: [
      {
        post_id: "1900223344556677881",
        user_name: "unicode_fan",
        name: "Ünïcødé 🦄",
        text: "GM 🌅 おはよう 𝕏 — 👨‍👩‍👧‍👦",
        view_count: 4096,
        profile_image_url: "https://pbs.twimg.com/profile_images/1/ü.jpg",
        create_time: "2026-01-20T08:00:00.000+00:00",
      },
    ],
    related_questions: ["How do you say goodbye in these languages? 👋"],
    conversation: {
      conversation_id: "3c9e1f7a-5b2d-4e8c-a6f0-9d1b3e5f7a2c",
      title: "Hello in many languages 🌍",
      temporary: false,
      create_time: "2026-01-20T08:15:30.001+00:00",
      modify_time: "2026-01-20T08:15:30.001+00:00",
    },
    llm_model: null,
  },

  citations: {
    result:
      "Here is an iterative approach.[1] It runs in O(n) time.[2][3]\n\n" +
      "# Iterative Fibonacci\ndef fib(n: int) -> int:\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n\n" +
      "A recursive version for comparison:\n\n" +
      "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\n" +
      "const fib = (n) => (n < 2 ? n : fib(n - 1) + fib(n - 2));\n\n" +
      "The closed form uses the golden ratio. Memoisation is covered in the same tutorial.[2] A post with more examples.[4] Unsafe link removed.",
    result_markdown:
      "Here is an iterative approach.[1](https://en.wikipedia.org/wiki/Fibonacci_sequence) It runs in O(n) time.[2](https://realpython.com/fibonacci-sequence-python/)[3](https://stackoverflow.com/questions/494594/how-to-write-the-fibonacci-sequence)\n\n" +
      "```python\n# Iterative Fibonacci\ndef fib(n: int) -> int:\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n```\n\n" +
      "A recursive version for comparison:\n\n" +
      "```python\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n```\n\n" +
      "```javascript\nconst fib = (n) => (n < 2 ? n : fib(n - 1) + fib(n - 2));\n```\n\n" +
      "The closed form uses the golden ratio. Memoisation is covered in the same tutorial.[2](https://realpython.com/fibonacci-sequence-python/) A post with more examples.[4](https://x.com/pythonista/status/1900334455667788990) Unsafe link removed.",
    web_sources: [
      {
        title: "Fibonacci sequence - Wikipedia",
        url: "https://en.wikipedia.org/wiki/Fibonacci_sequence",
        preview:
          "In mathematics, the Fibonacci sequence is a sequence in which each element is the sum of the two elements that precede it.",
      },
      {
        title: "A Python Guide to the Fibonacci Sequence – Real Python",
        url: "https://realpython.com/fibonacci-sequence-python/",
        preview: "In this step-by-step tutorial, you'll explore the Fibonacci sequence in Python.",
      },
    ],
    social_results: [],
    related_questions: ["How can I memoise the recursive version?", "What is Binet's formula?"],
    conversation: {
      conversation_id: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
      title: "Fibonacci in Python",
      temporary: false,
      create_time: "2026-04-01T12:00:00.000+00:00",
      modify_time: "2026-04-01T12:00:00.000+00:00",
    },
    llm_model: null,
  },

  thinking: {
    result:
      "Yes. 1,000,003 is prime.\n\nIt has no divisor up to its square root (≈ 1000.0015):\n\n" +
      "1. It is odd and its digit sum (4) is not divisible by 3.\n2. Trial division by every prime up to 997 leaves a remainder.\n\n" +
      "So its only divisors are 1 and 1,000,003.",
    result_markdown:
      "Yes. **1,000,003 is prime.**\n\nIt has no divisor up to its square root (≈ 1000.0015):\n\n" +
      "1. It is odd and its digit sum (4) is not divisible by 3.\n2. Trial division by every prime up to 997 leaves a remainder.\n\n" +
      "So its only divisors are 1 and 1,000,003.",
    web_sources: [],
    social_results: [],
    related_questions: ["What is the next prime after 1,000,003?"],
    conversation: {
      conversation_id: "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a",
      title: "Is 1,000,003 prime?",
      temporary: false,
      create_time: "2026-05-05T05:05:05.505+00:00",
      modify_time: "2026-05-05T05:05:05.505+00:00",
    },
    llm_model: null,
  },

  "tokens-only": {
    result: "Apple announced new MacBook Air models today.[1] Early reviews are positive.",
    result_markdown:
      "Apple announced new MacBook Air models today.[1](https://www.apple.com/newsroom/2026/03/apple-introduces-macbook-air-with-m5/) Early reviews are positive.",
    web_sources: [
      {
        title: "Apple introduces MacBook Air with M5 - Apple Newsroom",
        url: "https://www.apple.com/newsroom/2026/03/apple-introduces-macbook-air-with-m5/",
        preview: "Apple today announced the new MacBook Air.",
      },
    ],
    social_results: [],
    related_questions: ["How much does the new MacBook Air cost?"],
    conversation: {
      conversation_id: "2f3e4d5c-6b7a-4981-a0b1-c2d3e4f5a6b7",
      title: "Today's top tech headline",
      temporary: false,
      create_time: "2026-03-04T15:00:00.000+00:00",
      modify_time: "2026-03-04T15:00:00.000+00:00",
    },
    llm_model: null,
  },

  "key-citations": {
    result:
      "Key Points\n\n" +
      "- Solid-state batteries promise higher energy density and improved safety.\n- Mass production is expected around 2027–2028.\n\n" +
      "Overview\n\n" +
      "Company\tTarget year\tChemistry\nToyota\t2027\tSulfide\nQuantumScape\t2026\tOxide\n\n" +
      "Most manufacturers are still at pilot scale.\n\n" +
      "Key Citations:\n\n" +
      "- Toyota solid-state battery plans – Reuters\n- QuantumScape Q4 shareholder letter\n- Solid-state battery - Wikipedia",
    result_markdown:
      "### Key Points\n" +
      "- Solid-state batteries promise higher energy density and improved safety.\n- Mass production is expected around 2027–2028.\n\n" +
      "### Overview\n" +
      "| Company | Target year | Chemistry |\n|---|---|---|\n| Toyota | 2027 | Sulfide |\n| QuantumScape | 2026 | Oxide |\n\n" +
      "Most manufacturers are still at pilot scale.\n\n" +
      "**Key Citations:**\n" +
      "- [Toyota solid-state battery plans – Reuters](https://www.reuters.com/business/autos-transportation/toyota-solid-state-2026/)\n" +
      "- [QuantumScape Q4 shareholder letter](https://ir.quantumscape.com/q4-2025-letter)\n" +
      "- [Solid-state battery - Wikipedia](https://en.wikipedia.org/wiki/Solid-state_battery)",
    web_sources: [
      {
        title: "Toyota solid-state battery plans – Reuters",
        url: "https://www.reuters.com/business/autos-transportation/toyota-solid-state-2026/",
        preview: "Toyota aims to commercialise solid-state batteries in 2027–2028.",
      },
      {
        title: "QuantumScape Q4 shareholder letter",
        url: "https://ir.quantumscape.com/q4-2025-letter",
        preview: "QuantumScape began shipping B-samples.",
      },
      {
        title: "Solid-state battery - Wikipedia",
        url: "https://en.wikipedia.org/wiki/Solid-state_battery",
        preview: "A solid-state battery uses solid electrodes and a solid electrolyte.",
      },
    ],
    social_results: [],
    related_questions: ["Which carmakers will ship solid-state batteries first?"],
    conversation: {
      conversation_id: "6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d",
      title: "Solid-state batteries in 2026",
      temporary: false,
      create_time: "2026-06-10T10:10:10.010+00:00",
      modify_time: "2026-06-10T10:10:10.010+00:00",
    },
    llm_model: null,
  },

  "null-fields": {
    result: "An answer whose metadata is sparse.",
    result_markdown: "An answer whose metadata is sparse.",
    web_sources: [
      { title: "Page A", url: "https://example.org/a", preview: null },
      { title: "Site B", url: "https://example.org/b", preview: null },
      { title: "https://example.org/c", url: "https://example.org/c", preview: "padded preview" },
    ],
    social_results: [
      { post_id: "1900445566778899001", user_name: "", name: "", text: "", view_count: 0, profile_image_url: null, create_time: null },
      {
        post_id: "1900445566778899002",
        user_name: "",
        name: "Only an at sign",
        text: "  spaced text  ",
        view_count: 42,
        profile_image_url: null,
        create_time: null,
      },
    ],
    related_questions: ["What else?"],
    conversation: {
      conversation_id: "8c7b6a5f-4e3d-4c2b-a1f0-e9d8c7b6a5f4",
      title: null,
      temporary: true,
      create_time: null,
      modify_time: null,
    },
    llm_model: null,
  },

  "no-conversation": {
    result: "Dune (1965) was written by Frank Herbert.[1]",
    // balanced parentheses stay as they are in the destination, so the link matches web_sources[0].url exactly
    result_markdown: "**Dune** (1965) was written by Frank Herbert.[1](https://en.wikipedia.org/wiki/Dune_(novel))",
    web_sources: [
      {
        title: "Dune (novel) - Wikipedia",
        url: "https://en.wikipedia.org/wiki/Dune_(novel)",
        preview: "Dune is a 1965 epic science fiction novel by American author Frank Herbert.",
      },
    ],
    social_results: [],
    related_questions: ["What other books did Frank Herbert write?"],
    conversation: null,
    llm_model: null,
  },

  "malformed-line": {
    result: "2 + 2 = 4.",
    result_markdown: "2 + 2 = **4**.",
    web_sources: [],
    social_results: [],
    related_questions: ["What is 2+3?"],
    conversation: {
      conversation_id: "4b3a2f1e-0d9c-4b8a-a7f6-e5d4c3b2a1f0",
      title: "Simple arithmetic",
      temporary: false,
      create_time: "2026-08-08T08:08:08.808+00:00",
      modify_time: "2026-08-08T08:08:08.808+00:00",
    },
    llm_model: null,
  },

  "follow-up": {
    result: "Yes — a flash flood warning is in effect until 9 PM CDT.[1] Officials advise avoiding flooded roads.[2]",
    result_markdown:
      "Yes — a **flash flood warning** is in effect until 9 PM CDT.[1](https://www.weather.gov/hgx/) Officials advise avoiding flooded roads.[2](https://x.com/HoustonOEM/status/1900556677889900112)",
    web_sources: [
      {
        title: "National Weather Service Houston/Galveston",
        url: "https://www.weather.gov/hgx/",
        preview: "Flash Flood Warning in effect.",
      },
    ],
    social_results: [
      {
        post_id: "1900556677889900111",
        user_name: "NWSHouston",
        name: "NWS Houston",
        text: "Flash flood warning until 9 PM CDT.",
        view_count: 51234,
        profile_image_url: "https://pbs.twimg.com/profile_images/nws_normal.jpg",
        create_time: "2026-05-20T18:02:00.000+00:00",
      },
      {
        post_id: "1900556677889900112",
        user_name: "HoustonOEM",
        name: "Houston OEM",
        text: "Avoid driving through flooded roads. Turn around, don't drown.",
        view_count: 20480,
        profile_image_url: null,
        create_time: "2026-05-20T18:10:00.000+00:00",
      },
      {
        post_id: "1900556677889900113",
        user_name: "KHOU",
        name: "KHOU 11",
        text: "Live: flooding on I-45 near downtown.",
        view_count: 9001,
        profile_image_url: "https://pbs.twimg.com/profile_images/khou_normal.jpg",
        create_time: "2026-05-20T18:20:00.000+00:00",
      },
    ],
    related_questions: ["Which roads are closed?"],
    conversation: null,
    llm_model: null,
  },

  "follow-up-untagged-tokens": {
    result: "It is expected to stop raining around midnight, but roads may stay flooded until morning.",
    result_markdown: "It is expected to stop raining around midnight, but roads may stay flooded until morning.",
    web_sources: [],
    social_results: [],
    related_questions: ["Will there be more rain this week?"],
    conversation: null,
    llm_model: null,
  },
};

const DETAIL = {
  antiBot: "Grok rejected the request with an anti-bot challenge. Safe to retry.",
  login: "Grok requires a login: the browser session is not signed in to grok.com.",
  rateLimit: "Grok's rate limit was reached. Retry shortly.",
  region: "Grok is not available in the region this request was routed through. Try another country.",
  streamError: "Grok reported an error while answering. Safe to retry.",
  moderated: "Grok declined to answer: the content was moderated.",
  truncated: "Grok's stream ended before the answer was complete. Safe to retry.",
  empty: "Grok returned an empty answer. Safe to retry.",
};

const upstream = (detail: string, retryable: boolean) => ({ name: "UpstreamError", status: 502, detail, retryable });
const unexpected = (detail: string) => ({ name: "UnexpectedResultError", status: 500, detail, retryable: true });

/** Error fixtures: how they are captured and what they must produce. */
const FAILING: Record<string, { overrides: Partial<StreamCapture>; error: ReturnType<typeof upstream> }> = {
  "stream-error": { overrides: {}, error: upstream(DETAIL.streamError, true) },
  moderated: { overrides: {}, error: upstream(DETAIL.moderated, false) },
  truncated: { overrides: { complete: false, error: "net::ERR_CONNECTION_CLOSED" }, error: upstream(DETAIL.truncated, true) },
  "empty-answer": { overrides: {}, error: unexpected(DETAIL.empty) },
};

// ---------------------------------------------------------------------------------------------------------------
// Long answer (> 30 kB), generated so that the fixture directory stays small

const LONG_SOURCES = ["https://example.com/long/a", "https://example.com/long/b_(draft)", "https://example.org/long/c"];

function longAnswer(): { body: string; markdown: string; plain: string } {
  const raw: string[] = [];
  const markdown: string[] = [];
  const plain: string[] = [];
  for (let index = 1; index <= 320; index += 1) {
    const source = (index % 3) as 0 | 1 | 2;
    const tag = `<grok:render card_id="10ng0${source}" card_type="citation_card" type="render_inline_citation">\n<argument name="citation_id">${index}</argument>\n</grok:render>`;
    const text = `Paragraph ${index}: **Grok** reports 日本語 🚀 𝕏 and café — value ${index * 7}.`;
    raw.push(`${text}${tag}`);
    markdown.push(`${text}[${source + 1}](${LONG_SOURCES[source] ?? ""})`);
    plain.push(`Paragraph ${index}: Grok reports 日本語 🚀 𝕏 and café — value ${index * 7}.[${source + 1}]`);
    if (index % 40 === 0) {
      const code = `for i in range(${index}):\n    print("🚀", i)`;
      raw.push(`\`\`\`x-pythonsrc\n${code}\n\`\`\``);
      markdown.push(`\`\`\`python\n${code}\n\`\`\``);
      plain.push(code);
    }
  }
  const message = raw.join("\n\n");
  const rid = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0";
  const cards = LONG_SOURCES.map((url, source) =>
    JSON.stringify({ id: `10ng0${source}`, type: "render_inline_citation", cardType: "citation_card", url }),
  );
  const lines: unknown[] = [
    {
      result: {
        conversation: {
          conversationId: "c0ffee00-1111-4222-8333-444455556666",
          title: "New conversation",
          starred: false,
          createTime: "2026-11-01T00:00:00.000Z",
          modifyTime: "2026-11-01T00:00:00.000Z",
          systemPromptName: "",
          temporary: false,
          mediaTypes: [],
        },
      },
    },
    {
      result: {
        response: {
          webSearchResults: {
            results: LONG_SOURCES.map((url, source) => ({
              url,
              title: `Long source ${source + 1}`,
              preview: "",
              siteName: "",
              citationId: "",
            })),
          },
          responseId: rid,
        },
      },
    },
  ];
  // deltas of ~64 code points, as the site streams them; never half a surrogate pair
  const characters = Array.from(message);
  for (let start = 0; start < characters.length; start += 64) {
    lines.push({
      result: {
        response: {
          token: characters.slice(start, start + 64).join(""),
          isThinking: false,
          isSoftStop: false,
          responseId: rid,
          messageTag: "final",
          messageStepId: 0,
        },
      },
    });
  }
  lines.push({
    result: {
      response: {
        modelResponse: {
          responseId: rid,
          message,
          sender: "ASSISTANT",
          createTime: "2026-11-01T00:01:00.000Z",
          parentResponseId: "",
          manual: false,
          partial: false,
          shared: false,
          query: "Write a long answer",
          queryType: "",
          webSearchResults: LONG_SOURCES.map((url, source) => ({ url, title: `Long source ${source + 1}`, preview: "" })),
          xpostIds: [],
          xposts: [],
          cardAttachmentsJson: cards,
          generatedImageUrls: [],
          steps: [],
          mediaTypes: [],
        },
      },
    },
  });
  lines.push({ result: { title: { newTitle: "A very long answer" } } });
  return { body: lines.map((line) => JSON.stringify(line)).join("\n") + "\n", markdown: markdown.join("\n\n"), plain: plain.join("\n\n") };
}

// ---------------------------------------------------------------------------------------------------------------
// Tests

describe("parseGrokCapture: hand-written fixtures", () => {
  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(`parses ${name}`, () => {
      expect(parseGrokCapture(capture(fixture(name)))).toEqual(expected);
    });
  }

  for (const [name, { overrides, error }] of Object.entries(FAILING)) {
    it(`fails ${name} with a client-safe error`, () => {
      expect(failure(capture(fixture(name), overrides))).toEqual(error);
    });
  }

  it("leaves no grok:render or xaiArtifact tag in any answer", () => {
    for (const name of Object.keys(EXPECTED)) {
      const answer = parseGrokCapture(capture(fixture(name)));
      expect(answer.result_markdown).not.toMatch(/<\/?grok:render|<\/?argument|<\/?xaiArtifact|x-\w+src/);
      expect(answer.result).not.toMatch(/<\/?grok:render|<\/?argument|<\/?xaiArtifact/);
    }
  });

  it("parses an answer longer than 30 kB", () => {
    const { body, markdown, plain } = longAnswer();
    const answer = parseGrokCapture(capture(body));
    expect(encoder.encode(markdown).length).toBeGreaterThan(30_000);
    expect(answer).toEqual({
      result: plain,
      result_markdown: markdown,
      web_sources: LONG_SOURCES.map((url, source) => ({ title: `Long source ${source + 1}`, url, preview: null })),
      social_results: [],
      related_questions: [],
      conversation: {
        conversation_id: "c0ffee00-1111-4222-8333-444455556666",
        title: "A very long answer",
        temporary: false,
        create_time: "2026-11-01T00:00:00.000+00:00",
        modify_time: "2026-11-01T00:00:00.000+00:00",
      },
      llm_model: null,
    });
  });
});

describe("parseGrokCapture: chunk boundaries never change the result", () => {
  let seed = 1;
  for (const name of Object.keys(EXPECTED)) {
    const runSeed = seed++;
    it(`${name}: every byte boundary and random cuts`, () => {
      expectSameForEveryChunking(fixture(name), {}, runSeed);
    });
  }
  for (const [name, { overrides }] of Object.entries(FAILING)) {
    const runSeed = seed++;
    it(`${name}: every byte boundary and random cuts`, () => {
      expectSameForEveryChunking(fixture(name), overrides, runSeed);
    });
  }
  it("long answer: cuts inside characters, around line ends, at a stride and at random", () => {
    // every boundary of a ~100 kB body would be 100k parses of several ms; the risky boundaries are sampled instead
    const body = encoder.encode(longAnswer().body);
    expect(body.length).toBeGreaterThan(60_000);
    expectSameForEveryChunking(body, {}, 99, { everyBoundaryUpTo: 0, sampledCuts: 240, randomRounds: 40 });
  }, 30_000);
});

describe("parseGrokCapture: HTTP-level failures", () => {
  const cloudflare =
    '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title><meta http-equiv="refresh" content="390"></head>' +
    '<body><div id="challenge-body-text">grok.com needs to review the security of your connection before proceeding.</div>' +
    '<script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8f00"></script></body></html>';

  it("recognises the anti-bot JSON rejection (retryable)", () => {
    const error = failure(capture('{"error":{"code":7,"message":"Request rejected by anti-bot rules.","details":[]}}', { status: 403 }));
    expect(error).toEqual(upstream(DETAIL.antiBot, true));
  });

  it("recognises Cloudflare's challenge page on 403, 503 and even 200", () => {
    for (const status of [403, 503, 200]) {
      expect(failure(capture(cloudflare, { status, contentType: "text/html; charset=UTF-8" }))).toEqual(upstream(DETAIL.antiBot, true));
    }
  });

  it("treats other 401/403 answers as a login wall (not retryable)", () => {
    expect(failure(capture('{"error":{"code":16,"message":"Unauthenticated","details":[]}}', { status: 401 }))).toEqual(
      upstream(DETAIL.login, false),
    );
    expect(failure(capture('{"error":{"code":7,"message":"Anonymous access is blocked","details":[]}}', { status: 403 }))).toEqual(
      upstream(DETAIL.login, false),
    );
  });

  it("maps 429 to a retryable rate-limit error", () => {
    const error = failure(capture('{"error":{"code":8,"message":"Too many requests","details":[]}}', { status: 429 }));
    expect(error).toEqual(upstream(DETAIL.rateLimit, true));
    expect(error.detail).toMatch(/rate limit/);
  });

  it("maps any other status to a retryable upstream error that names only the status", () => {
    expect(failure(capture("upstream connect error or disconnect/reset before headers", { status: 502 }))).toEqual(
      upstream("Grok answered with HTTP 502. Safe to retry.", true),
    );
    expect(failure(capture("", { status: 0, error: "net::ERR_CONNECTION_RESET", complete: false }))).toEqual(
      upstream("Grok could not be reached. Safe to retry.", true),
    );
  });

  it("recognises the region block whatever the status (not retryable)", () => {
    for (const status of [403, 451, 200]) {
      expect(failure(capture("This service is not available in your region.", { status, contentType: "text/plain" }))).toEqual(
        upstream(DETAIL.region, false),
      );
    }
  });

  it("maps an in-stream usage-limit error to a retryable rate-limit error", () => {
    const body =
      '{"result":{"response":{"token":"Hi","isThinking":false,"messageTag":"final"}}}\n{"error":{"code":8,"message":"You have reached your usage limit for Expert mode."}}\n';
    expect(failure(capture(body))).toEqual(upstream(DETAIL.rateLimit, true));
  });

  it("gives each failure its own public code: challenge, login wall, rate limit, anything else", () => {
    const codeOf = (input: StreamCapture): string | null => {
      try {
        parseGrokCapture(input);
        return null;
      } catch (error) {
        return error instanceof ServiceError ? error.code : null;
      }
    };
    const usageLimit =
      '{"result":{"response":{"token":"Hi","isThinking":false,"messageTag":"final"}}}\n{"error":{"code":8,"message":"You have reached your usage limit for Expert mode."}}\n';
    const cases: Array<[StreamCapture, string]> = [
      [capture('{"error":{"code":7,"message":"Request rejected by anti-bot rules.","details":[]}}', { status: 403 }), "provider_challenge"],
      [capture(cloudflare, { status: 503, contentType: "text/html" }), "provider_challenge"],
      [capture('{"error":{"code":16,"message":"Unauthenticated","details":[]}}', { status: 401 }), "provider_login_required"],
      [capture('{"error":{"code":8,"message":"Too many requests","details":[]}}', { status: 429 }), "provider_rate_limited"],
      [capture(usageLimit), "provider_rate_limited"],
      [capture("upstream connect error", { status: 502 }), "upstream_error"],
      [capture("This service is not available in your region.", { status: 451, contentType: "text/plain" }), "upstream_error"],
    ];
    for (const [input, code] of cases) {
      expect(codeOf(input), code).toBe(code);
      // the same at every split of the body
      const body = concatChunks(input.chunks);
      for (let at = 1; at < body.length; at += Math.max(1, Math.floor(body.length / 40))) {
        expect(codeOf({ ...input, chunks: [body.subarray(0, at), body.subarray(at)] }), `${code} split at ${at}`).toBe(code);
      }
    }
  });

  it("never echoes provider text in error details", () => {
    const error = failure(capture(fixture("stream-error")));
    expect(error.detail).not.toMatch(/shard|trace|Internal error/);
  });
});

describe("parseGrokCapture: stream completeness and token fallback", () => {
  it("reports a body cut mid-line as truncated even when the capture says complete", () => {
    expect(failure(capture(fixture("truncated")))).toEqual(upstream(DETAIL.truncated, true));
  });

  it("reports a complete stream without modelResponse and without answer tokens as truncated", () => {
    const body = editFixture("empty-answer", (lines) => lines.filter((line) => !hasPath(line, "result", "response", "modelResponse")));
    expect(failure(capture(body))).toEqual(upstream(DETAIL.truncated, true));
    expect(failure(capture(""))).toEqual(upstream(DETAIL.truncated, true));
  });

  it("reports a broken-off stream without modelResponse as truncated even when answer tokens arrived", () => {
    expect(failure(capture(fixture("tokens-only"), { complete: false }))).toEqual(upstream(DETAIL.truncated, true));
  });

  it("keeps the answer of a stream cut after modelResponse (only the title line is lost)", () => {
    const body = editFixture("no-posts", (lines) => lines.filter((line) => !hasPath(line, "result", "title")));
    const answer = parseGrokCapture(capture(body, { complete: false }));
    expect(answer).toEqual({ ...EXPECTED["no-posts"], conversation: { ...EXPECTED["no-posts"]?.conversation, title: "New conversation" } });
  });

  it("falls back to the final tokens when modelResponse.message is empty", () => {
    const body = editFixture("thinking", (lines) =>
      lines.map((line) => {
        if (!hasPath(line, "result", "response", "modelResponse")) return line;
        const copy = structuredClone(line) as { result: { response: { modelResponse: { message: string } } } };
        copy.result.response.modelResponse.message = "";
        return copy;
      }),
    );
    expect(parseGrokCapture(capture(body))).toEqual(EXPECTED.thinking);
  });

  it("ignores untagged tokens when the stream tags its tokens", () => {
    const lines = [
      { result: { response: { token: "reasoning", isThinking: true, messageTag: "header" } } },
      { result: { response: { token: "Answer", isThinking: false, messageTag: "final" } } },
      { result: { response: { token: " [tool output]", isThinking: false } } },
      { result: { response: { token: " text.", isThinking: false, messageTag: "final" } } },
      { result: { response: { token: ' {"results":[]}', isThinking: false, messageTag: "raw_function_result" } } },
    ];
    const answer = parseGrokCapture(capture(lines.map((line) => JSON.stringify(line)).join("\n")));
    expect(answer.result_markdown).toBe("Answer text.");
    expect(answer.result).toBe("Answer text.");
  });

  it("applies a title only when the title line comes after the conversation line", () => {
    const conversation = {
      result: { conversation: { conversationId: "c-1", title: "First title", temporary: false, createTime: "", modifyTime: "" } },
    };
    const title = { result: { title: { newTitle: "Early title" } } };
    const answerLine = { result: { response: { modelResponse: { message: "Hi." } } } };
    const answer = parseGrokCapture(capture([title, conversation, answerLine].map((line) => JSON.stringify(line)).join("\n")));
    expect(answer.conversation).toEqual({
      conversation_id: "c-1",
      title: "First title",
      temporary: false,
      create_time: null,
      modify_time: null,
    });
  });

  it("unwraps markdown artifacts as they are and fences plain-text artifacts with a fence longer than their backticks", () => {
    const message =
      "Files:\n\n" +
      '<xaiArtifact artifact_id="a" title="notes.md" contentType="text/markdown">\n## Notes\n\n- one\n</xaiArtifact>\n\n' +
      'Then:<xaiArtifact artifact_id="b" title="requirements.txt" contentType="text/plain">\nhono==4\n```not a fence end```\n</xaiArtifact>' +
      '<xaiArtifact artifact_id="c" title="x.java" contentType="text/x-java">class X {}</xaiArtifact>';
    const answer = parseGrokCapture(capture(JSON.stringify({ result: { response: { modelResponse: { message } } } })));
    expect(answer.result_markdown).toBe(
      "Files:\n\n## Notes\n\n- one\n\nThen:\n\n````\nhono==4\n```not a fence end```\n````\n\n```java\nclass X {}\n```",
    );
    expect(answer.result).toBe("Files:\n\nNotes\n\n- one\n\nThen:\n\nhono==4\n```not a fence end```\n\nclass X {}");
  });

  it("removes broken or unknown render tags so that none reaches the client", () => {
    const message =
      'Start.<grok:render card_id="a1" card_type="citation_card" type="render_inline_citation"><argument name="citation_id">0</argument></grok:render>' +
      '<grok:render card_id="zz" card_type="some_future_card" type="render_future"></grok:render> Middle.' +
      "<grok:render card_id='a1' card_type='citation_card'/></grok:render>" +
      ' End.<grok:render card_id="a1" card_type="citation_card" type="render_inline_citation"><argument name="citation_id">0';
    const line = {
      result: {
        response: {
          modelResponse: {
            message,
            cardAttachmentsJson: [
              JSON.stringify({ id: "a1", type: "render_inline_citation", cardType: "citation_card", url: "https://example.com/x y" }),
            ],
          },
        },
      },
    };
    const answer = parseGrokCapture(capture(JSON.stringify(line)));
    expect(answer.result_markdown).toBe(
      "Start.[1](https://example.com/x%20y) Middle.[1](https://example.com/x%20y) End.[1](https://example.com/x%20y)",
    );
    expect(answer.result_markdown).not.toContain("<grok:render");
  });
});
