/**
 * A monitor's definition (src/monitors/monitor-definition.ts): the body of `POST /monitors` and `PATCH /monitors/{id}`,
 * read strictly, each problem a 400 naming its field path as batch items do. Every expected value and detail is written
 * out by hand from the rules in docs/monitors.md ("Defining a monitor") and the scrapers' documented parameters and
 * countries (grok refuses JP and TW; Amazon Rufus runs only in its marketplaces).
 */
import { describe, expect, it } from "vitest";
import { InvalidParameterError } from "../../src/errors";
import { parseMonitorDefinition, parseMonitorUpdate } from "../../src/monitors/monitor-definition";
import type { MonitorDefinition } from "../../src/monitors/monitor-types";

const SETTINGS = { allowLoopback: false };
const SCRAPERS = "chatgpt, perplexity, grok, copilot, gemini, google_ai_mode, amazon_rufus";

const FULL_BODY = {
  name: "Running shoes",
  prompts: ["best running shoes", "best trail running shoes"],
  scrapers: ["chatgpt", { scraper: "grok", params: { mode: "MODEL_MODE_FAST" } }],
  countries: ["us", "DE"],
  schedule: { cron: "0 6 * * *" },
  brands: [{ name: "Nike", aliases: ["Nike Inc"], domains: ["nike.com", "Store.Nike.com"] }],
  evidence: ["html"],
  webhook_url: "https://hooks.example.com/monitors",
};

const FULL_DEFINITION: MonitorDefinition = {
  name: "Running shoes",
  prompts: ["best running shoes", "best trail running shoes"],
  targets: [
    { scraper: "chatgpt", params: {} },
    { scraper: "grok", params: { mode: "MODEL_MODE_FAST" } },
  ],
  countries: ["US", "DE"],
  schedule: { kind: "cron", expression: "0 6 * * *" },
  brands: [{ name: "Nike", aliases: ["Nike Inc"], domains: ["nike.com", "store.nike.com"] }],
  evidence: ["html"],
  webhookUrl: "https://hooks.example.com/monitors",
};

const MINIMAL_BODY = {
  name: "Shoes",
  prompts: ["best running shoes"],
  scrapers: ["grok"],
  countries: ["US"],
  schedule: { every_hours: 24 },
};

/** The minimal body with `fields` replaced (undefined removes one). */
function body(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries({ ...MINIMAL_BODY, ...fields }).filter(([, value]) => value !== undefined));
}

function refusedWith(input: unknown, detail: string): void {
  expect(() => parseMonitorDefinition(input, SETTINGS)).toThrow(new InvalidParameterError(detail));
}

function promptList(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `prompt number ${index + 1}`);
}

describe("a monitor's definition", () => {
  it("reads every field: scrapers as ids or with params, countries upper-cased, domains lower-cased", () => {
    expect(parseMonitorDefinition(FULL_BODY, SETTINGS)).toEqual(FULL_DEFINITION);
  });

  it("defaults brands and evidence to none and the webhook to the account's", () => {
    expect(parseMonitorDefinition(MINIMAL_BODY, SETTINGS)).toEqual({
      name: "Shoes",
      prompts: ["best running shoes"],
      targets: [{ scraper: "grok", params: {} }],
      countries: ["US"],
      schedule: { kind: "every_hours", hours: 24 },
      brands: [],
      evidence: [],
      webhookUrl: null,
    });
    expect(parseMonitorDefinition(body({ brands: null, evidence: null, webhook_url: null }), SETTINGS)).toMatchObject({
      brands: [],
      evidence: [],
      webhookUrl: null,
    });
  });

  it("refuses what is not an object, and unknown fields, listing the accepted ones", () => {
    refusedWith([], 'Request body: must be a JSON object {"name", "prompts", "scrapers", "countries", "schedule", …}');
    refusedWith(
      body({ tags: ["a"] }),
      "Unknown field: tags. A monitor accepts: name, prompts, scrapers, countries, schedule, brands, evidence, webhook_url.",
    );
    refusedWith(
      body({ tags: ["a"], paused: true }),
      "Unknown fields: tags, paused. A monitor accepts: name, prompts, scrapers, countries, schedule, brands, evidence, webhook_url.",
    );
  });

  it("names each required field that is missing", () => {
    refusedWith(body({ name: undefined }), "name: is required");
    refusedWith(body({ prompts: undefined }), "prompts: is required");
    refusedWith(body({ scrapers: undefined }), "scrapers: is required");
    refusedWith(body({ countries: undefined }), "countries: is required");
    refusedWith(body({ schedule: undefined }), "schedule: is required");
  });
});

describe("name", () => {
  it("is 1 to 100 characters, not blank, kept without surrounding spaces", () => {
    expect(parseMonitorDefinition(body({ name: `  ${"n".repeat(100)} ` }), SETTINGS).name).toBe("n".repeat(100));
    for (const name of ["", "   ", "n".repeat(101), 42]) refusedWith(body({ name }), "name: must be 1 to 100 characters and not blank");
  });
});

describe("prompts", () => {
  it("are 1 to 200", () => {
    expect(parseMonitorDefinition(body({ prompts: promptList(200) }), SETTINGS).prompts).toHaveLength(200);
    refusedWith(body({ prompts: [] }), "prompts: must be an array of 1 to 200 prompts");
    refusedWith(body({ prompts: promptList(201) }), "prompts: must be an array of 1 to 200 prompts");
    refusedWith(body({ prompts: "best running shoes" }), "prompts: must be an array of 1 to 200 prompts");
  });

  it("are each what the prompt parameter accepts: 1 to 4,000 characters, not blank", () => {
    expect(parseMonitorDefinition(body({ prompts: ["p".repeat(4000)] }), SETTINGS).prompts).toEqual(["p".repeat(4000)]);
    const detail = "must be 1 to 4000 characters and not blank";
    refusedWith(body({ prompts: ["a", "b", "c", "  "] }), `prompts[3]: ${detail}`);
    refusedWith(body({ prompts: ["a", "p".repeat(4001)] }), `prompts[1]: ${detail}`);
    refusedWith(body({ prompts: [""] }), `prompts[0]: ${detail}`);
    refusedWith(body({ prompts: [7] }), `prompts[0]: ${detail}`);
  });

  it("are each given once", () => {
    refusedWith(body({ prompts: ["a", "b", "a"] }), "prompts[2]: repeats prompts[0]; give each prompt once");
  });
});

describe("scrapers", () => {
  it("are 1 to 7 entries, each known and listed once", () => {
    refusedWith(body({ scrapers: [] }), "scrapers: must be an array of 1 to 7 scrapers");
    refusedWith(body({ scrapers: [...SCRAPERS.split(", "), "grok"] }), "scrapers: must be an array of 1 to 7 scrapers");
    refusedWith(body({ scrapers: ["grok", "bing"] }), `scrapers[1]: must be one of ${SCRAPERS}`);
    refusedWith(body({ scrapers: ["grok", { scraper: "bing" }] }), `scrapers[1].scraper: must be one of ${SCRAPERS}`);
    refusedWith(body({ scrapers: [{ params: {} }] }), "scrapers[0].scraper: is required");
    refusedWith(body({ scrapers: [7] }), 'scrapers[0]: must be a scraper id such as "grok" or {"scraper": "grok", "params": {…}}');
    refusedWith(body({ scrapers: ["grok", "chatgpt", { scraper: "grok" }] }), "scrapers[2]: grok is listed twice; give each scraper once");
    refusedWith(
      body({ scrapers: [{ scraper: "grok", mode: "MODEL_MODE_FAST" }] }),
      "scrapers[0]: Unknown field: mode. A scraper entry accepts: scraper, params.",
    );
  });

  it("take the scraper's own parameters, numbers and booleans in their string form", () => {
    const definition = parseMonitorDefinition(
      body({
        scrapers: [
          { scraper: "grok", params: { mode: "MODEL_MODE_EXPERT", timeout: 120 } },
          { scraper: "perplexity", params: { web_search: false, bypass_cache: true } },
          { scraper: "chatgpt", params: null },
        ],
      }),
      SETTINGS,
    );
    expect(definition.targets).toEqual([
      { scraper: "grok", params: { mode: "MODEL_MODE_EXPERT", timeout: "120" } },
      { scraper: "perplexity", params: { web_search: "false", bypass_cache: "true" } },
      { scraper: "chatgpt", params: {} },
    ]);
  });

  it("refuse a parameter the scraper does not take or a value it refuses, in the query's words", () => {
    refusedWith(
      body({ scrapers: [{ scraper: "grok", params: { mode: "MODEL_MODE_SLOW" } }] }),
      "scrapers[0].params.mode: must be one of MODEL_MODE_AUTO, MODEL_MODE_FAST, MODEL_MODE_EXPERT",
    );
    refusedWith(
      body({ scrapers: [{ scraper: "grok", params: { temperature: 1 } }] }),
      "scrapers[0].params: Unknown parameter: temperature. The grok scraper accepts: bypass_cache, timeout, mode.",
    );
    refusedWith(
      body({ scrapers: [{ scraper: "grok", params: { constructor: "x" } }] }),
      "scrapers[0].params: Unknown parameter: constructor. The grok scraper accepts: bypass_cache, timeout, mode.",
    );
    // as JSON.parse reads a body: `__proto__` an own key, not the prototype
    const protoParams: unknown = JSON.parse('{"__proto__": "x"}');
    refusedWith(
      body({ scrapers: [{ scraper: "grok", params: protoParams }] }),
      "scrapers[0].params: Unknown parameter: __proto__. The grok scraper accepts: bypass_cache, timeout, mode.",
    );
    refusedWith(
      body({ scrapers: ["chatgpt", { scraper: "perplexity", params: { timeout: 5 } }] }),
      "scrapers[1].params.timeout: must be a number of seconds from 10 to 600, written in digits only (such as 300)",
    );
    refusedWith(
      body({ scrapers: [{ scraper: "grok", params: { mode: ["MODEL_MODE_FAST"] } }] }),
      "scrapers[0].params.mode: must be a string, number or boolean",
    );
    refusedWith(
      body({ scrapers: [{ scraper: "grok", params: "MODEL_MODE_FAST" }] }),
      `scrapers[0].params: must be an object of the scraper's parameters, such as {"mode": "…"}`,
    );
  });

  it("refuse prompt, country and api_key inside params: a monitor sets those itself", () => {
    refusedWith(body({ scrapers: [{ scraper: "grok", params: { country: "DE" } }] }), "scrapers[0].params.country: set countries instead");
    refusedWith(body({ scrapers: [{ scraper: "grok", params: { prompt: "x" } }] }), "scrapers[0].params.prompt: set prompts instead");
    refusedWith(
      body({ scrapers: [{ scraper: "grok", params: { api_key: "k" } }] }),
      "scrapers[0].params.api_key: is not accepted in a monitor; send the key in the X-API-Key header",
    );
  });
});

describe("countries", () => {
  it("are 1 to 25 ISO codes, case-insensitive, stored upper case, each given once", () => {
    expect(parseMonitorDefinition(body({ countries: ["de", " fr ", "Gb"] }), SETTINGS).countries).toEqual(["DE", "FR", "GB"]);
    refusedWith(body({ countries: [] }), "countries: must be an array of 1 to 25 ISO 3166-1 alpha-2 country codes");
    const twentySix = "US DE FR GB IT ES NL BE AT CH SE NO DK FI PL PT IE CA MX BR AR AU NZ IN SG ZA".split(" ");
    expect(twentySix).toHaveLength(26);
    refusedWith(body({ countries: twentySix }), "countries: must be an array of 1 to 25 ISO 3166-1 alpha-2 country codes");
    expect(parseMonitorDefinition(body({ countries: twentySix.slice(0, 25) }), SETTINGS).countries).toHaveLength(25);
    refusedWith(body({ countries: ["us", "DE", "US"] }), "countries[2]: US is listed twice; give each country once");
    refusedWith(body({ countries: [1] }), 'countries[0]: must be an ISO 3166-1 alpha-2 country code such as "US" or "DE"');
  });

  it("are refused in the words of the API's country parameter", () => {
    refusedWith(body({ countries: ["USA"] }), "countries[0]: must be exactly 2 characters (an ISO 3166-1 alpha-2 code such as US or DE)");
    refusedWith(body({ countries: ["US", "XX"] }), "countries[1]: XX is not an assigned ISO 3166-1 alpha-2 country code");
  });

  it("are each accepted by every listed scraper", () => {
    refusedWith(body({ scrapers: ["chatgpt", "grok"], countries: ["US", "jp"] }), "countries[1]: JP is not supported by the grok scraper");
    expect(parseMonitorDefinition(body({ scrapers: ["chatgpt"], countries: ["US", "jp"] }), SETTINGS).countries).toEqual(["US", "JP"]);
    expect(() => parseMonitorDefinition(body({ scrapers: ["amazon_rufus"], countries: ["DE", "CH"] }), SETTINGS)).toThrow(
      /^countries\[1\]: CH has no Amazon marketplace with Rufus; use one of US, GB, DE, /,
    );
  });
});

describe("scrapes per run", () => {
  it("are at most 1,000 (prompts × scrapers × countries)", () => {
    const fiveScrapers = ["chatgpt", "perplexity", "grok", "copilot", "gemini"];
    expect(parseMonitorDefinition(body({ prompts: promptList(200), scrapers: fiveScrapers }), SETTINGS).prompts).toHaveLength(200);
    refusedWith(
      body({ prompts: promptList(200), scrapers: ["chatgpt", "grok", "gemini"], countries: ["US", "DE"] }),
      "prompts: 200 prompts × 3 scrapers × 2 countries is 1,200 scrapes a run; the most is 1,000",
    );
    refusedWith(
      body({ prompts: promptList(101), countries: "US DE FR GB IT ES NL BE AT CH".split(" ") }),
      "prompts: 101 prompts × 1 scraper × 10 countries is 1,010 scrapes a run; the most is 1,000",
    );
  });
});

describe("schedule", () => {
  it("is read as a schedule, its refusals named schedule…", () => {
    expect(parseMonitorDefinition(body({ schedule: { cron: "0 9 * * 1-5" } }), SETTINGS).schedule).toEqual({
      kind: "cron",
      expression: "0 9 * * 1-5",
    });
    refusedWith(
      body({ schedule: { cron: "*/5 * * * *" } }),
      'schedule.cron: "*/5 * * * *" runs every 5 minutes; the minimum is once an hour',
    );
  });
});

describe("brands", () => {
  it("are at most 20, each a name with optional aliases and domains, repeats kept once", () => {
    const brands = [{ name: " Adidas ", aliases: ["adidas AG", "adidas AG"], domains: ["adidas.com", "ADIDAS.com"] }, { name: "Puma" }];
    expect(parseMonitorDefinition(body({ brands }), SETTINGS).brands).toEqual([
      { name: "Adidas", aliases: ["adidas AG"], domains: ["adidas.com"] },
      { name: "Puma", aliases: [], domains: [] },
    ]);
    const twentyOne = Array.from({ length: 21 }, (_, index) => ({ name: `Brand ${index}` }));
    expect(parseMonitorDefinition(body({ brands: twentyOne.slice(0, 20) }), SETTINGS).brands).toHaveLength(20);
    refusedWith(body({ brands: twentyOne }), "brands: must be an array of at most 20 brands");
    refusedWith(body({ brands: { name: "Nike" } }), "brands: must be an array of at most 20 brands");
  });

  it("each have a name of 1 to 100 characters, not blank, and unique", () => {
    refusedWith(body({ brands: [{ name: "" }] }), "brands[0].name: must not be empty");
    refusedWith(body({ brands: [{ name: "Nike" }, { name: "  " }] }), "brands[1].name: must not be empty");
    refusedWith(body({ brands: [{ aliases: ["Nike"] }] }), "brands[0].name: is required");
    refusedWith(body({ brands: [{ name: "b".repeat(101) }] }), "brands[0].name: must be at most 100 characters");
    refusedWith(body({ brands: [{ name: 5 }] }), "brands[0].name: must be a string");
    refusedWith(body({ brands: [{ name: "Nike" }, { name: "nike" }] }), 'brands[1].name: "nike" is listed twice (brands[0])');
    refusedWith(body({ brands: ["Nike"] }), 'brands[0]: must be an object {"name", "aliases"?, "domains"?}');
    refusedWith(
      body({ brands: [{ name: "Nike", url: "nike.com" }] }),
      "brands[0]: Unknown field: url. A brand accepts: name, aliases, domains.",
    );
  });

  it("have at most 20 aliases of 1 to 100 characters", () => {
    refusedWith(body({ brands: [{ name: "Nike", aliases: ["Nike Inc", " "] }] }), "brands[0].aliases[1]: must not be empty");
    refusedWith(body({ brands: [{ name: "Nike", aliases: ["a".repeat(101)] }] }), "brands[0].aliases[0]: must be at most 100 characters");
    const aliases = Array.from({ length: 21 }, (_, index) => `Alias ${index}`);
    refusedWith(body({ brands: [{ name: "Nike", aliases }] }), "brands[0].aliases: must be an array of at most 20 names");
  });

  it("have at most 20 domains, each a host name, lower-cased; a URL is refused with the host to write instead", () => {
    const brand = (domains: unknown) => body({ brands: [{ name: "Nike", domains }] });
    expect(parseMonitorDefinition(brand(["Nike.COM", "shop.nike.co.uk", "my-brand.example"]), SETTINGS).brands[0]?.domains).toEqual([
      "nike.com",
      "shop.nike.co.uk",
      "my-brand.example",
    ]);
    refusedWith(
      brand(["nike.com", "https://nike.com/x"]),
      'brands[0].domains[1]: "https://nike.com/x" is not a domain; write it as nike.com',
    );
    refusedWith(brand(["nike.com:443"]), 'brands[0].domains[0]: "nike.com:443" is not a domain; write it as nike.com');
    refusedWith(brand(["www.nike.com/"]), 'brands[0].domains[0]: "www.nike.com/" is not a domain; write it as www.nike.com');
    refusedWith(brand([" nike.com"]), 'brands[0].domains[0]: " nike.com" is not a domain; write it as nike.com');
    const generic = "is not a domain; write a host name such as example.com (letters, digits, hyphens and dots)";
    refusedWith(brand(["nike"]), `brands[0].domains[0]: "nike" ${generic}`);
    refusedWith(brand(["nike .com"]), `brands[0].domains[0]: "nike .com" ${generic}`);
    refusedWith(brand(["-nike.com"]), `brands[0].domains[0]: "-nike.com" ${generic}`);
    refusedWith(brand(["nike..com"]), `brands[0].domains[0]: "nike..com" ${generic}`);
    refusedWith(brand(["nïke.com"]), `brands[0].domains[0]: "nïke.com" ${generic}`);
    refusedWith(brand([42]), 'brands[0].domains[0]: must be a domain such as "example.com"');
    const domains = Array.from({ length: 21 }, (_, index) => `site${index}.example`);
    refusedWith(brand(domains), "brands[0].domains: must be an array of at most 20 domains");
  });
});

describe("evidence and webhook_url", () => {
  it("read evidence as a batch item's evidence field is read", () => {
    expect(parseMonitorDefinition(body({ evidence: "stream, screenshot" }), SETTINGS).evidence).toEqual(["screenshot", "stream"]);
    refusedWith(
      body({ evidence: ["video"] }),
      'evidence: unknown evidence kind "video"; accepted: screenshot, html, stream (comma-separated), or none',
    );
  });

  it("check the webhook URL's syntax as batches do", () => {
    refusedWith(body({ webhook_url: "http://hooks.example.com/m" }), "webhook_url: must use https");
    refusedWith(
      body({ webhook_url: "https://hooks.example.com:8080/m" }),
      "webhook_url: must use port 443 or 8443 (the https default is 443)",
    );
    refusedWith(body({ webhook_url: 42 }), "webhook_url: must be an absolute https URL");
  });
});

describe("an update", () => {
  const current = parseMonitorDefinition(FULL_BODY, SETTINGS);

  it("replaces the fields it gives and keeps the rest", () => {
    expect(parseMonitorUpdate({}, current, SETTINGS)).toEqual(FULL_DEFINITION);
    expect(parseMonitorUpdate({ name: "Trail shoes", schedule: { every_hours: 12 } }, current, SETTINGS)).toEqual({
      ...FULL_DEFINITION,
      name: "Trail shoes",
      schedule: { kind: "every_hours", hours: 12 },
    });
  });

  it("clears an optional field given as null", () => {
    expect(parseMonitorUpdate({ webhook_url: null, brands: null, evidence: null }, current, SETTINGS)).toEqual({
      ...FULL_DEFINITION,
      brands: [],
      evidence: [],
      webhookUrl: null,
    });
  });

  it("validates the result as a whole", () => {
    const chatgptInJapan = parseMonitorDefinition(body({ scrapers: ["chatgpt"], countries: ["US", "JP"] }), SETTINGS);
    expect(() => parseMonitorUpdate({ scrapers: ["chatgpt", "grok"] }, chatgptInJapan, SETTINGS)).toThrow(
      new InvalidParameterError("countries[1]: JP is not supported by the grok scraper"),
    );
    const large = parseMonitorDefinition(body({ prompts: promptList(200), countries: ["US", "DE", "FR", "GB", "IT"] }), SETTINGS);
    expect(() => parseMonitorUpdate({ countries: ["US", "DE", "FR", "GB", "IT", "ES"] }, large, SETTINGS)).toThrow(
      new InvalidParameterError("prompts: 200 prompts × 1 scraper × 6 countries is 1,200 scrapes a run; the most is 1,000"),
    );
  });

  it("refuses unknown fields and a body that is not an object", () => {
    expect(() => parseMonitorUpdate({ paused: true }, current, SETTINGS)).toThrow(
      new InvalidParameterError(
        "Unknown field: paused. A monitor accepts: name, prompts, scrapers, countries, schedule, brands, evidence, webhook_url.",
      ),
    );
    expect(() => parseMonitorUpdate(null, current, SETTINGS)).toThrow(
      new InvalidParameterError("Request body: must be a JSON object of the fields to change"),
    );
  });
});
