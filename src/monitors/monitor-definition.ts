/**
 * The body of `POST /monitors` and `PATCH /monitors/{id}`, read strictly (docs/monitors.md, "Defining a monitor"):
 * `{name, prompts, scrapers, countries, schedule, brands?, evidence?, webhook_url?}`. Each problem is a 400 naming its
 * field path, as batch items do (`prompts[3]: …`, `scrapers[1].params.mode: …`). A scraper's parameters and each
 * country are validated by that scraper's own query schema (`querySchemaOf`), so they accept exactly what a query
 * accepts and are refused in the API's words. An update replaces the fields it gives and validates the result whole.
 */
import { InvalidParameterError } from "../errors";
import { parseEvidenceField } from "../evidence/evidence-kinds";
import { type ValidationIssues, commonParamShape, describeValidationError } from "../params/common-params";
import { type AnyProvider, SCRAPER_IDS, acceptedParameterNames, providerById, querySchemaOf } from "../scrapers/registry";
import { isRecord } from "../util/json-record";
import { type UrlPolicySettings, checkWebhookUrlSyntax } from "../webhooks/url-policy";
import { parseMonitorSchedule, scheduleToBody } from "./monitor-schedule";
import type { Brand, MonitorDefinition, MonitorTarget } from "./monitor-types";

export const MAX_MONITOR_NAME_LENGTH = 100;
export const MAX_MONITOR_PROMPTS = 200;
export const MAX_MONITOR_COUNTRIES = 25;
/** prompts × scrapers × countries: one run is at most this many scrapes. */
export const MAX_SCRAPES_PER_RUN = 1000;
export const MAX_BRANDS = 20;
export const MAX_BRAND_NAME_LENGTH = 100;
export const MAX_BRAND_ALIASES = 20;
export const MAX_BRAND_DOMAINS = 20;
/** A hostname is at most 253 characters (RFC 1035), a label at most 63. */
const MAX_DOMAIN_LENGTH = 253;

const MONITOR_FIELDS = ["name", "prompts", "scrapers", "countries", "schedule", "brands", "evidence", "webhook_url"] as const;
const TARGET_FIELDS = ["scraper", "params"] as const;
const BRAND_FIELDS = ["name", "aliases", "domains"] as const;

/** Parameters a monitor sets for all its scrapes at once, so a scraper entry's `params` may not: what to say instead. */
const PARAMS_SET_ELSEWHERE: Readonly<Record<string, string>> = {
  prompt: "set prompts instead",
  country: "set countries instead",
  api_key: "is not accepted in a monitor; send the key in the X-API-Key header",
};

/** What to say of a parameter a scraper entry may not set, or undefined when it may (own keys only: `constructor` is a name too). */
function setElsewhere(name: string): string | undefined {
  return Object.hasOwn(PARAMS_SET_ELSEWHERE, name) ? PARAMS_SET_ELSEWHERE[name] : undefined;
}

/** A prompt the parameter check runs with: a scraper entry's params are validated as a query without its prompt. */
const PLACEHOLDER_PROMPT = "placeholder";

type Settings = Pick<UrlPolicySettings, "allowLoopback">;

/** Refuses fields a body, a scraper entry or a brand does not accept, listing the ones it does. */
function refuseUnknownFields(where: string, what: string, value: Record<string, unknown>, accepted: readonly string[]): void {
  const unknown = Object.keys(value).filter((name) => !accepted.includes(name));
  if (unknown.length === 0) return;
  const noun = unknown.length === 1 ? "Unknown field" : "Unknown fields";
  const prefix = where === "" ? "" : `${where}: `;
  throw new InvalidParameterError(`${prefix}${noun}: ${unknown.join(", ")}. ${what} accepts: ${accepted.join(", ")}.`);
}

function required(field: string, value: unknown): unknown {
  if (value === undefined) throw new InvalidParameterError(`${field}: is required`);
  return value;
}

/** The array of `field`, of `min` to `max` entries, or a 400 saying so in those words. */
function listField(field: string, value: unknown, min: number, max: number, noun: string): unknown[] {
  if (!Array.isArray(value) || value.length < min || value.length > max) {
    const range = min === 0 ? `at most ${max}` : `${min} to ${max}`;
    throw new InvalidParameterError(`${field}: must be an array of ${range} ${noun}`);
  }
  return value;
}

function parseName(value: unknown): string {
  const name = typeof value === "string" ? value.trim() : "";
  if (name === "" || name.length > MAX_MONITOR_NAME_LENGTH) {
    throw new InvalidParameterError(`name: must be 1 to ${MAX_MONITOR_NAME_LENGTH} characters and not blank`);
  }
  return name;
}

/** The query's own `prompt` rule (1 to 4,000 characters, not blank), so a prompt is refused in the API's words. */
const PROMPT_SCHEMA = commonParamShape("monitor").prompt;

function parsePrompts(value: unknown): string[] {
  const prompts = listField("prompts", value, 1, MAX_MONITOR_PROMPTS, "prompts").map((prompt, index) => {
    const parsed = PROMPT_SCHEMA.safeParse(prompt);
    if (!parsed.success) throw new InvalidParameterError(`prompts[${index}]: ${parsed.error.issues[0]?.message ?? "is invalid"}`);
    return parsed.data;
  });
  // a prompt asked twice would be scraped and charged twice per run, and its two answers compared with each other's
  const seen = new Map<string, number>();
  prompts.forEach((prompt, index) => {
    const first = seen.get(prompt);
    if (first !== undefined) throw new InvalidParameterError(`prompts[${index}]: repeats prompts[${first}]; give each prompt once`);
    seen.set(prompt, index);
  });
  return prompts;
}

/** A scraper entry's params as the query-string schema expects them: strings (numbers and booleans in their string form). */
function paramsAsQuery(field: string, params: Record<string, unknown>): Record<string, string> {
  const entries = Object.entries(params).map(([name, value]): [string, string] => {
    const elsewhere = setElsewhere(name);
    if (elsewhere !== undefined) throw new InvalidParameterError(`${field}.${name}: ${elsewhere}`);
    if (typeof value === "string") return [name, value];
    if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean") return [name, String(value)];
    throw new InvalidParameterError(`${field}.${name}: must be a string, number or boolean`);
  });
  // fromEntries defines each key as its own, `__proto__` included, so the schema sees (and refuses) every name sent
  return Object.fromEntries(entries);
}

/** Validates `params` by the scraper's query schema; the country is not the entry's to set, so its rule is left out. */
function checkTargetParams(provider: AnyProvider, field: string, params: Record<string, string>): void {
  const parsed = querySchemaOf(provider).safeParse({ ...params, prompt: PLACEHOLDER_PROMPT });
  if (parsed.success) return;
  const issues: ValidationIssues = { issues: parsed.error.issues.filter((issue) => issue.path[0] !== "country") };
  const issue = issues.issues[0];
  if (issue === undefined) return;
  const accepted = acceptedParameterNames(provider).filter((name) => setElsewhere(name) === undefined);
  const detail = describeValidationError(provider.id, accepted, issues);
  const named = issue.code !== "unrecognized_keys" && issue.path.length > 0;
  throw new InvalidParameterError(named ? `${field}.${detail}` : `${field}: ${detail}`);
}

function parseTarget(entry: unknown, index: number): MonitorTarget {
  const field = `scrapers[${index}]`;
  const known = `must be one of ${SCRAPER_IDS.join(", ")}`;
  if (typeof entry === "string") {
    const provider = providerById(entry);
    if (provider === undefined) throw new InvalidParameterError(`${field}: ${known}`);
    return { scraper: provider.id, params: {} };
  }
  if (!isRecord(entry)) {
    throw new InvalidParameterError(`${field}: must be a scraper id such as "grok" or {"scraper": "grok", "params": {…}}`);
  }
  refuseUnknownFields(field, "A scraper entry", entry, TARGET_FIELDS);
  const provider = typeof entry.scraper === "string" ? providerById(entry.scraper) : undefined;
  if (entry.scraper === undefined) throw new InvalidParameterError(`${field}.scraper: is required`);
  if (provider === undefined) throw new InvalidParameterError(`${field}.scraper: ${known}`);
  if (entry.params === undefined || entry.params === null) return { scraper: provider.id, params: {} };
  if (!isRecord(entry.params)) {
    throw new InvalidParameterError(`${field}.params: must be an object of the scraper's parameters, such as {"mode": "…"}`);
  }
  const params = paramsAsQuery(`${field}.params`, entry.params);
  checkTargetParams(provider, `${field}.params`, params);
  return { scraper: provider.id, params };
}

function parseTargets(value: unknown): MonitorTarget[] {
  const entries = listField("scrapers", value, 1, SCRAPER_IDS.length, "scrapers");
  const targets = entries.map(parseTarget);
  targets.forEach((target, index) => {
    if (targets.findIndex((other) => other.scraper === target.scraper) < index) {
      throw new InvalidParameterError(`scrapers[${index}]: ${target.scraper} is listed twice; give each scraper once`);
    }
  });
  return targets;
}

/** Each country upper-cased, accepted by every listed scraper (by its own country rule, in the API's words). */
function parseCountries(value: unknown, targets: readonly MonitorTarget[]): string[] {
  const entries = listField("countries", value, 1, MAX_MONITOR_COUNTRIES, "ISO 3166-1 alpha-2 country codes");
  const countries = entries.map((entry, index) => {
    if (typeof entry !== "string") {
      throw new InvalidParameterError(`countries[${index}]: must be an ISO 3166-1 alpha-2 country code such as "US" or "DE"`);
    }
    let code = entry.trim().toUpperCase();
    for (const target of targets) {
      const provider = providerById(target.scraper);
      if (provider === undefined) continue;
      const parsed = querySchemaOf(provider).shape.country.safeParse(entry);
      if (!parsed.success) throw new InvalidParameterError(`countries[${index}]: ${parsed.error.issues[0]?.message ?? "is invalid"}`);
      code = parsed.data;
    }
    return code;
  });
  countries.forEach((country, index) => {
    const first = countries.indexOf(country);
    if (first < index) throw new InvalidParameterError(`countries[${index}]: ${country} is listed twice; give each country once`);
  });
  return countries;
}

function counted(count: number, one: string, many: string): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;
}

function checkScrapesPerRun(prompts: number, scrapers: number, countries: number): void {
  const scrapes = prompts * scrapers * countries;
  if (scrapes <= MAX_SCRAPES_PER_RUN) return;
  throw new InvalidParameterError(
    `prompts: ${counted(prompts, "prompt", "prompts")} × ${counted(scrapers, "scraper", "scrapers")} × ${counted(countries, "country", "countries")} is ` +
      `${scrapes.toLocaleString("en-US")} scrapes a run; the most is ${MAX_SCRAPES_PER_RUN.toLocaleString("en-US")}`,
  );
}

/** A brand's name or alias: trimmed, 1 to 100 characters. */
function brandName(field: string, value: unknown): string {
  if (typeof value !== "string") throw new InvalidParameterError(`${field}: must be a string`);
  const name = value.trim();
  if (name === "") throw new InvalidParameterError(`${field}: must not be empty`);
  if (name.length > MAX_BRAND_NAME_LENGTH) throw new InvalidParameterError(`${field}: must be at most ${MAX_BRAND_NAME_LENGTH} characters`);
  return name;
}

/** Lower-case labels of letters, digits and inner hyphens, at least two of them. */
const DOMAIN_PATTERN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/**
 * The host a customer most likely meant by something that is not a domain (`https://nike.com/x` → `nike.com`), or
 * null when none can be read from it. Only ever shown as a hint: a domain is never rewritten silently.
 */
function hostMeant(value: string): string | null {
  const host = value
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, "")
    .replace(/^[^@/]*@/, "")
    .replace(/[/?#].*$/, "")
    .replace(/:\d*$/, "")
    .replace(/\.$/, "");
  return DOMAIN_PATTERN.test(host) ? host : null;
}

function parseDomain(field: string, value: unknown): string {
  if (typeof value !== "string") throw new InvalidParameterError(`${field}: must be a domain such as "example.com"`);
  const domain = value.toLowerCase();
  if (domain.length <= MAX_DOMAIN_LENGTH && DOMAIN_PATTERN.test(domain)) return domain;
  const shown = value.length > 100 ? `${value.slice(0, 100)}…` : value;
  const meant = hostMeant(value);
  const hint = meant === null ? "write a host name such as example.com (letters, digits, hyphens and dots)" : `write it as ${meant}`;
  throw new InvalidParameterError(`${field}: "${shown}" is not a domain; ${hint}`);
}

function parseBrand(entry: unknown, index: number): Brand {
  const field = `brands[${index}]`;
  if (!isRecord(entry)) throw new InvalidParameterError(`${field}: must be an object {"name", "aliases"?, "domains"?}`);
  refuseUnknownFields(field, "A brand", entry, BRAND_FIELDS);
  const name = brandName(`${field}.name`, required(`${field}.name`, entry.name));
  const aliases = listField(`${field}.aliases`, entry.aliases ?? [], 0, MAX_BRAND_ALIASES, "names").map((alias, aliasIndex) =>
    brandName(`${field}.aliases[${aliasIndex}]`, alias),
  );
  const domains = listField(`${field}.domains`, entry.domains ?? [], 0, MAX_BRAND_DOMAINS, "domains").map((domain, domainIndex) =>
    parseDomain(`${field}.domains[${domainIndex}]`, domain),
  );
  // repeats change no figure: kept once, in the order given
  return { name, aliases: [...new Set(aliases)], domains: [...new Set(domains)] };
}

function parseBrands(value: unknown): Brand[] {
  if (value === undefined || value === null) return [];
  const brands = listField("brands", value, 0, MAX_BRANDS, "brands").map(parseBrand);
  // a brand's figures are reported under its name, so two brands of one name could not be told apart
  brands.forEach((brand, index) => {
    const first = brands.findIndex((other) => other.name.toLowerCase() === brand.name.toLowerCase());
    if (first < index) throw new InvalidParameterError(`brands[${index}].name: "${brand.name}" is listed twice (brands[${first}])`);
  });
  return brands;
}

function parseWebhookUrl(value: unknown, settings: Settings): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw new InvalidParameterError("webhook_url: must be an absolute https URL");
  const verdict = checkWebhookUrlSyntax(value, settings);
  if (!verdict.ok) throw new InvalidParameterError(`webhook_url: ${verdict.reason}`);
  return verdict.url;
}

/** The body of `POST /monitors`, validated: a 400 (`InvalidParameterError`) naming the first field that is wrong. */
export function parseMonitorDefinition(body: unknown, settings: Settings): MonitorDefinition {
  if (!isRecord(body)) {
    throw new InvalidParameterError('Request body: must be a JSON object {"name", "prompts", "scrapers", "countries", "schedule", …}');
  }
  refuseUnknownFields("", "A monitor", body, MONITOR_FIELDS);
  const name = parseName(required("name", body.name));
  const prompts = parsePrompts(required("prompts", body.prompts));
  const targets = parseTargets(required("scrapers", body.scrapers));
  const countries = parseCountries(required("countries", body.countries), targets);
  checkScrapesPerRun(prompts.length, targets.length, countries.length);
  const schedule = parseMonitorSchedule(body.schedule);
  const brands = parseBrands(body.brands);
  const evidence = parseEvidenceField("evidence", body.evidence) ?? [];
  const webhookUrl = parseWebhookUrl(body.webhook_url, settings);
  return { name, prompts, targets, countries, schedule, brands, evidence, webhookUrl };
}

/** A definition as a body carries it: what an update's given fields are laid over. */
export function definitionToBody(definition: MonitorDefinition): Record<string, unknown> {
  return {
    name: definition.name,
    prompts: definition.prompts,
    scrapers: definition.targets.map((target) => ({ scraper: target.scraper, params: target.params })),
    countries: definition.countries,
    schedule: scheduleToBody(definition.schedule),
    brands: definition.brands,
    evidence: definition.evidence,
    webhook_url: definition.webhookUrl,
  };
}

/**
 * The body of `PATCH /monitors/{id}`: the fields it gives replace the current ones (`null` clears an optional one:
 * brands, evidence, webhook_url), and the result is validated as a whole, as a new definition would be.
 */
export function parseMonitorUpdate(body: unknown, current: MonitorDefinition, settings: Settings): MonitorDefinition {
  if (!isRecord(body)) throw new InvalidParameterError("Request body: must be a JSON object of the fields to change");
  refuseUnknownFields("", "A monitor", body, MONITOR_FIELDS);
  return parseMonitorDefinition({ ...definitionToBody(current), ...body }, settings);
}
