/**
 * `npm run fuzz -- --seeds 50`: every scraper on seeded page variants of its replica (issue 29). For each provider and
 * seed, the replica fuzzes the scrape's page loads with the chosen classes (replicas/shared/variation.ts, all by
 * default), the scrape asks for the scenario the seed draws (test/support/oracles/draw.ts, the same choice as the e2e
 * suite's fixed seeds), and every field of the answer is compared exactly with the provider's oracle, written from
 * the scenario. Prints, per provider and per class, the fields that passed and failed, and the seed of every failure:
 * `npm run fuzz -- --providers gemini --seed 17` replays one.
 *
 * Runs on its own stack (bench/stack.ts: wrangler dev on a free port of 8870–8879, its own state and account), never
 * the developer's. Providers run side by side (`--parallel`, default 2: two cores), each provider's seeds one after
 * another on its own browser session.
 *
 * Options: --seeds N (50) · --from S (first seed, 1) · --seed S (just that one) · --providers a,b (all) ·
 * --classes a,b (all) · --parallel N (2) · --verbose (wrangler's log).
 */
import { startBenchStack, type BenchStack } from "../bench/stack";
import { isVariationClass, VARIATION_CLASSES, type VariationClass } from "../replicas/shared/variation";
import { caseForSeed, fieldMismatches } from "../test/support/oracles/draw";
import { ORACLES } from "../test/support/oracles/index";
import type { ProviderOracle } from "../test/support/oracles/oracle";

interface Options {
  seeds: number[];
  providers: ProviderOracle[];
  classes: VariationClass[];
  parallel: number;
  verbose: boolean;
}

/** The outcome of one seed: which fields passed, which failed, and what the page variants were. */
interface SeedOutcome {
  provider: string;
  seed: number;
  scenario: string;
  status: number;
  passed: string[];
  failed: { field: string; expected: unknown; actual: unknown }[];
  /** Classes that changed something on this scrape's pages, with what they did. */
  applied: Partial<Record<VariationClass, string[]>>;
  detail: string | null;
  elapsedMs: number;
}

function parseOptions(args: readonly string[]): Options {
  const value = (flag: string): string | undefined => {
    const index = args.indexOf(flag);
    return index === -1 ? undefined : args[index + 1];
  };
  const count = (flag: string, fallback: number): number => {
    const raw = value(flag);
    if (raw === undefined) return fallback;
    const parsed = Number(raw);
    if (!Number.isInteger(parsed) || parsed < 0) throw new RangeError(`${flag}: must be a non-negative integer, got ${raw}`);
    return parsed;
  };
  const single = value("--seed");
  const from = count("--from", 1);
  const seeds = single !== undefined ? [count("--seed", 0)] : Array.from({ length: count("--seeds", 50) }, (_, index) => from + index);
  const providerNames = value("--providers")
    ?.split(",")
    .map((name) => name.trim());
  const unknownProviders = (providerNames ?? []).filter((name) => !ORACLES.some((oracle) => oracle.provider === name));
  if (unknownProviders.length > 0) {
    throw new RangeError(
      `--providers: unknown ${unknownProviders.join(", ")}; known: ${ORACLES.map((oracle) => oracle.provider).join(", ")}`,
    );
  }
  const classNames = value("--classes")
    ?.split(",")
    .map((name) => name.trim()) ?? [...VARIATION_CLASSES];
  const unknownClasses = classNames.filter((name) => !isVariationClass(name));
  if (unknownClasses.length > 0)
    throw new RangeError(`--classes: unknown ${unknownClasses.join(", ")}; known: ${VARIATION_CLASSES.join(", ")}`);
  return {
    seeds,
    providers: providerNames === undefined ? [...ORACLES] : ORACLES.filter((oracle) => providerNames.includes(oracle.provider)),
    classes: classNames.filter(isVariationClass),
    parallel: Math.max(1, count("--parallel", 2)),
    verbose: args.includes("--verbose"),
  };
}

async function control(stack: BenchStack, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${stack.replicaUrl}/__control/${path}`, {
    method: path === "state" ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    body: path === "state" ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`replica control ${path}: HTTP ${response.status} ${await response.text()}`);
  return response.json();
}

/** The classes that changed something on the provider's pages since its variation was set, merged over the page loads. */
async function appliedClasses(stack: BenchStack, provider: string): Promise<Partial<Record<VariationClass, string[]>>> {
  const state = await control(stack, "state", null);
  const draws = readDraws(state, provider);
  const merged: Partial<Record<VariationClass, string[]>> = {};
  for (const draw of draws) {
    for (const name of VARIATION_CLASSES) {
      const notes = draw[name];
      if (notes !== undefined) merged[name] = [...(merged[name] ?? []), ...notes];
    }
  }
  return merged;
}

/** `providers.<id>.variation.draws[].applied` of the control state, narrowed. */
function readDraws(state: unknown, provider: string): Partial<Record<VariationClass, string[]>>[] {
  const providers = field(state, "providers");
  const variation = field(field(providers, provider), "variation");
  const draws = field(variation, "draws");
  if (!Array.isArray(draws)) return [];
  return draws.map((draw: unknown) => {
    const applied = field(draw, "applied");
    const result: Partial<Record<VariationClass, string[]>> = {};
    for (const name of VARIATION_CLASSES) {
      const notes = field(applied, name);
      if (Array.isArray(notes)) result[name] = notes.filter((note): note is string => typeof note === "string");
    }
    return result;
  });
}

function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? Reflect.get(value, name) : undefined;
}

async function runSeed(stack: BenchStack, oracle: ProviderOracle, seed: number, classes: readonly VariationClass[]): Promise<SeedOutcome> {
  const { provider } = oracle;
  const scenario = caseForSeed(provider, oracle.cases(), seed);
  await control(stack, "variation", { provider, seed, classes });
  // a page prepared for the next scrape was drawn before this seed: start from a fresh page
  const discarded = await fetch(`${stack.baseUrl}/admin/pools/prepared-pages/discard`, {
    method: "POST",
    headers: { Authorization: `Bearer ${stack.adminToken}` },
  });
  if (!discarded.ok) throw new Error(`discarding prepared pages: HTTP ${discarded.status}`);
  const started = performance.now();
  const query = new URLSearchParams({ ...scenario.params, bypass_cache: "true" });
  const response = await fetch(`${stack.baseUrl}/scrapers/${provider}?${query}`, { headers: { "X-API-Key": stack.apiKey } });
  const elapsedMs = performance.now() - started;
  const body: unknown = await response.json().catch(() => null);
  const answer = typeof body === "object" && body !== null && !Array.isArray(body) ? Object.fromEntries(Object.entries(body)) : {};
  const applied = await appliedClasses(stack, provider);
  const fields = Object.keys(scenario.expected);
  const failed =
    response.status === 200
      ? fieldMismatches(scenario.expected, answer)
      : fields.map((name) => ({ field: name, expected: scenario.expected[name], actual: undefined }));
  const detail = field(body, "detail");
  return {
    provider,
    seed,
    scenario: scenario.id,
    status: response.status,
    passed: fields.filter((name) => !failed.some((failure) => failure.field === name)),
    failed,
    applied,
    detail: typeof detail === "string" ? detail : null,
    elapsedMs,
  };
}

/** Runs `work` over `items` with at most `limit` at once. */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next];
      next += 1;
      if (item !== undefined) await work(item);
    }
  });
  await Promise.all(lanes);
}

function pad(text: string | number, width: number): string {
  return String(text).padEnd(width);
}

function report(outcomes: readonly SeedOutcome[], options: Options, elapsedMs: number): boolean {
  console.log(
    `\nFields passed/failed, per provider and per class (a class counts the scrapes whose page loads it changed, in brackets; the page prepared for the next scrape may count too)\n`,
  );
  const header = ["provider", "scrapes", "fields", ...VARIATION_CLASSES.filter((name) => options.classes.includes(name))];
  console.log(`| ${header.join(" | ")} |`);
  console.log(`|${header.map(() => "---").join("|")}|`);
  let allPassed = true;
  for (const oracle of options.providers) {
    const mine = outcomes.filter((outcome) => outcome.provider === oracle.provider);
    const passed = mine.reduce((sum, outcome) => sum + outcome.passed.length, 0);
    const failed = mine.reduce((sum, outcome) => sum + outcome.failed.length, 0);
    if (failed > 0) allPassed = false;
    const perClass = VARIATION_CLASSES.filter((name) => options.classes.includes(name)).map((name) => {
      const touched = mine.filter((outcome) => outcome.applied[name] !== undefined);
      const ok = touched.reduce((sum, outcome) => sum + outcome.passed.length, 0);
      const bad = touched.reduce((sum, outcome) => sum + outcome.failed.length, 0);
      return `${ok}/${bad} (${touched.length})`;
    });
    const share = passed + failed === 0 ? "–" : `${((100 * passed) / (passed + failed)).toFixed(1)} %`;
    console.log(`| ${[oracle.provider, mine.length, `${passed}/${failed} (${share})`, ...perClass].join(" | ")} |`);
  }
  const failures = outcomes.filter((outcome) => outcome.failed.length > 0);
  if (failures.length > 0) {
    console.log(`\nFailures (replay one: npm run fuzz -- --providers <provider> --seed <seed>)`);
    for (const failure of failures) {
      console.log(
        `- ${pad(failure.provider, 15)} seed ${pad(failure.seed, 5)} scenario ${failure.scenario}: HTTP ${failure.status}${failure.detail === null ? "" : ` "${failure.detail}"`}`,
      );
      for (const mismatch of failure.failed.slice(0, 6)) {
        console.log(
          `    ${mismatch.field}: expected ${JSON.stringify(mismatch.expected)?.slice(0, 160)}, got ${JSON.stringify(mismatch.actual)?.slice(0, 160)}`,
        );
      }
      console.log(`    pages: ${JSON.stringify(failure.applied)}`);
    }
  }
  const seconds = (elapsedMs / 1000).toFixed(0);
  const perScrape = outcomes.length === 0 ? 0 : outcomes.reduce((sum, outcome) => sum + outcome.elapsedMs, 0) / outcomes.length / 1000;
  console.log(
    `\n${outcomes.length} scrapes in ${seconds} s (${perScrape.toFixed(1)} s per scrape on average, ${options.parallel} at once)`,
  );
  return allPassed;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  console.log(
    `Fuzzing ${options.providers.map((oracle) => oracle.provider).join(", ")} on seeds ${options.seeds[0]}–${options.seeds.at(-1)} (${options.seeds.length}), classes ${options.classes.join(", ")}`,
  );
  const started = performance.now();
  const stack = await startBenchStack({
    verbose: options.verbose,
    credits: 3 * options.seeds.length * options.providers.length + 100,
    variables: {
      ACCOUNT_MAX_CONCURRENT_REQUESTS: "32",
      KEY_REQUESTS_PER_MINUTE: "100000",
      ACCOUNT_REQUESTS_PER_MINUTE: "100000",
      BROWSER_LAUNCHES_PER_MINUTE: "1000",
    },
  });
  const outcomes: SeedOutcome[] = [];
  try {
    await inParallel(options.providers, options.parallel, async (oracle) => {
      for (const seed of options.seeds) {
        const outcome = await runSeed(stack, oracle, seed, options.classes);
        outcomes.push(outcome);
        const verdict = outcome.failed.length === 0 ? "ok" : `${outcome.failed.length} field(s) failed`;
        console.log(
          `  ${pad(oracle.provider, 15)} seed ${pad(seed, 5)} ${pad(outcome.scenario, 28)} ${(outcome.elapsedMs / 1000).toFixed(1)} s  ${verdict}`,
        );
      }
      await control(stack, "variation", { provider: oracle.provider, seed: null });
    });
  } finally {
    await stack.stop();
  }
  const ok = report(outcomes, options, performance.now() - started);
  process.exitCode = ok ? 0 : 1;
}

await main();
