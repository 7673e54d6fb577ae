/**
 * Fault control shared by every provider replica (DESIGN.md §6). Tests and benchmarks steer the replicas over HTTP:
 *
 *   POST /__control/faults  {"provider":"grok","fault":"challenge","count":2}
 *        Queues a fault: the next `count` (default 1) exchanges of that provider fail that way. Faults queue up in
 *        the order posted; each exchange takes from the head of its provider's queue. Optional `delay_ms`/`chunk_ms`
 *        pace only those faulted exchanges (for `slow` the default is 1500/1500). Without `fault`, `delay_ms`/`chunk_ms`
 *        set the provider's standing pacing instead, exactly like /__control/pacing.
 *   POST /__control/pacing  {"provider":"grok","delay_ms":200,"chunk_ms":20}   (provider optional = every provider)
 *        Standing answer pacing: `delay_ms` before the first byte of the answer, `chunk_ms` between body chunks.
 *        `total_ms` (e.g. {"provider":"grok","total_ms":3000}) sets the answer time exactly instead: the body is spread
 *        evenly over its chunks so that its last byte leaves `total_ms` after the answer request arrived (delay_ms and
 *        chunk_ms are then ignored for answers). `total_ms: 0` turns it off again. It applies to the answer
 *        exchanges built on replicas/shared/paced-body.ts, and to Copilot's turn (its socket spreads the turn's writes
 *        so that the last one leaves `total_ms` after the `send` frame arrived). The benchmark measures overhead
 *        against it.
 *   POST /__control/reset   {} or {"provider":"grok"}
 *        Clears faults, pacing, counters and recorded requests (of one provider, or of all plus the default pacing).
 *   POST /__control/layout  {"provider":"grok","layout":"b"}
 *        Switches the markup variant the provider's pages are served in (every replica has at least two sheet-legal
 *        layouts; the first is the default). Reset restores the default layout.
 *   POST /__control/changed-page  {"provider":"grok","count":2}
 *        The next `count` (default 1; 0 clears) page loads of that provider serve a changed page: a sheet-legal page
 *        of the site whose composer is gone and which shows no block evidence (layout drift). Reset clears it.
 *   POST /__control/variation  {"provider"?:"grok","seed":42,"classes"?:["hydration","late_lists"]}  ("seed":null = off)
 *        Page fuzzing (shared/variation.ts): every later page load of the provider (or of all) draws a seeded variant
 *        from the classes given (default all). Reset returns to the server's start setting (`--variation <seed>`).
 *   GET  /__control/state
 *        Pending faults, effective pacing, counters and the last recorded requests of every provider.
 *
 * An "exchange" is one request to a provider's answer endpoint (for Grok: POST .../conversations/new). Providers
 * decide which requests consume which fault; `login_wall` is typically consumed by the page load (see the provider's
 * app). Invalid control bodies answer 400 `{detail}`.
 */
import { Hono } from "hono";
import { z } from "zod";
import { enterAnswerDue } from "./shared/paced-body";
import { type DrawRecord, isVariationClass, VARIATION_CLASSES, VariationDraw, type VariationSetting } from "./shared/variation";

export const FAULT_NAMES = [
  "challenge",
  "login_wall",
  "rate_limited",
  "http_error",
  "malformed_stream",
  "disconnect",
  "hang",
  "empty_answer",
  "slow",
] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

/** Answer pacing: `delayMs` before the first byte, `chunkMs` between two body chunks. */
export interface Pacing {
  delayMs: number;
  chunkMs: number;
}

/** Standing pacing as posted: `totalMs` > 0 replaces delay and chunk pacing of answers (see `total_ms` above). */
type StandingPacing = Partial<Pacing> & { totalMs?: number };

/** Fast enough for tests, yet every chunk is still a separate write so the client sees split lines. */
export const DEFAULT_PACING: Readonly<Pacing> = { delayMs: 0, chunkMs: 2 };
/** Pacing of a `slow` exchange unless the fault was posted with its own. */
export const SLOW_PACING: Readonly<Pacing> = { delayMs: 1500, chunkMs: 1500 };

/** The default of `takeFault`: answer exchanges take any fault (page loads pass their own filter). */
const ANY_FAULT = (_fault: FaultName): boolean => true;

/** How many recorded requests each provider keeps (newest last). */
const MAX_RECORDED_REQUESTS = 20;

/** A request as a replica received it, kept so tests can check what the page sent (e.g. the mode). */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  receivedAt: string;
}

/** What one exchange must do: the fault to play (null = answer normally) and the pacing to use. */
export interface ExchangePlan {
  fault: FaultName | null;
  pacing: Pacing;
}

interface PendingFault {
  fault: FaultName;
  remaining: number;
  pacing: Partial<Pacing>;
}

interface ProviderState {
  layouts: readonly string[];
  layout: string;
  faults: PendingFault[];
  pacing: StandingPacing;
  exchanges: number;
  rejected: number;
  pageLoads: number;
  /** Page loads still to be served as a changed page (layout drift). */
  changedPages: number;
  faultsServed: Partial<Record<FaultName, number>>;
  requests: RecordedRequest[];
  /** Page fuzzing (shared/variation.ts): null = pages as the layout serves them. */
  variation: VariationSetting | null;
  /** Page loads drawn since the variation was set: the draw's page-load number, so a seed replays exactly. */
  variationLoads: number;
  /** The last draws, live: what a provider app notes while it renders shows in the state. */
  draws: VariationDraw[];
}

function freshProviderState(layouts: readonly string[], variation: VariationSetting | null = null): ProviderState {
  const layout = layouts[0] ?? "default";
  return {
    layouts,
    layout,
    faults: [],
    pacing: {},
    exchanges: 0,
    rejected: 0,
    pageLoads: 0,
    changedPages: 0,
    faultsServed: {},
    requests: [],
    variation,
    variationLoads: 0,
    draws: [],
  };
}

/** JSON shape of GET /__control/state (snake_case like the rest of the service's HTTP surface). */
export interface ControlState {
  default_pacing: { delay_ms: number; chunk_ms: number };
  providers: Record<
    string,
    {
      layout: string;
      layouts: readonly string[];
      faults: { fault: FaultName; remaining: number; delay_ms: number | null; chunk_ms: number | null }[];
      pacing: { delay_ms: number; chunk_ms: number; total_ms?: number };
      exchanges: number;
      rejected: number;
      page_loads: number;
      faults_served: Partial<Record<FaultName, number>>;
      requests: RecordedRequest[];
      variation: { seed: number; classes: readonly string[]; page_loads: number; draws: DrawRecord[] } | null;
    }
  >;
}

/** In-memory fault queue, pacing and counters of every mounted provider. One instance per replica server. */
export class FaultController {
  private readonly providers = new Map<string, ProviderState>();
  private defaultPacing: StandingPacing = {};

  /** @param startVariation fuzzing every provider starts with and a reset returns to (`--variation <seed>`). */
  constructor(private readonly startVariation: VariationSetting | null = null) {}

  /** Makes a provider known to the control API; the server calls this when it mounts the provider's app. */
  registerProvider(provider: string, layouts: readonly string[] = ["default"]): void {
    if (!this.providers.has(provider)) this.providers.set(provider, freshProviderState(layouts, this.startVariation));
  }

  /** Sets (or, with null, ends) page fuzzing of one provider, or of every provider when `provider` is undefined. */
  setVariation(provider: string | undefined, setting: VariationSetting | null): void {
    const states = provider === undefined ? [...this.providers.values()] : [this.stateOf(provider)];
    for (const state of states) {
      state.variation = setting;
      state.variationLoads = 0;
      state.draws = [];
    }
  }

  /**
   * The random choices of this page load, or null when the provider is not fuzzed. Provider apps call it once per page
   * they serve; the n-th page load after the setting draws the same page for the same seed.
   */
  drawVariation(provider: string): VariationDraw | null {
    const state = this.stateOf(provider);
    if (state.variation === null) return null;
    state.variationLoads += 1;
    const draw = new VariationDraw(provider, state.variation.seed, state.variationLoads, new Set(state.variation.classes));
    state.draws.push(draw);
    if (state.draws.length > MAX_RECORDED_REQUESTS) state.draws.splice(0, state.draws.length - MAX_RECORDED_REQUESTS);
    return draw;
  }

  /** The markup variant the provider's pages are served in now. */
  layoutOf(provider: string): string {
    return this.stateOf(provider).layout;
  }

  setLayout(provider: string, layout: string): void {
    const state = this.stateOf(provider);
    if (!state.layouts.includes(layout)) throw new RangeError(`layout: must be one of ${state.layouts.join(", ")}`);
    state.layout = layout;
  }

  providerIds(): string[] {
    return [...this.providers.keys()];
  }

  addFault(provider: string, fault: FaultName, count: number, pacing: Partial<Pacing> = {}): void {
    this.stateOf(provider).faults.push({ fault, remaining: count, pacing });
  }

  /** Standing pacing of one provider, or the default of every provider when `provider` is undefined. */
  setPacing(provider: string | undefined, pacing: StandingPacing): void {
    if (provider === undefined) this.defaultPacing = { ...this.defaultPacing, ...pacing };
    else {
      const state = this.stateOf(provider);
      state.pacing = { ...state.pacing, ...pacing };
    }
  }

  reset(provider?: string): void {
    if (provider !== undefined) {
      this.providers.set(provider, freshProviderState(this.stateOf(provider).layouts, this.startVariation));
      return;
    }
    this.defaultPacing = {};
    for (const [id, state] of this.providers) this.providers.set(id, freshProviderState(state.layouts, this.startVariation));
  }

  /** Counts one exchange (a request to the provider's answer endpoint) and records the request. */
  recordExchange(provider: string, request: RecordedRequest): void {
    const state = this.stateOf(provider);
    state.exchanges += 1;
    state.requests.push(request);
    if (state.requests.length > MAX_RECORDED_REQUESTS) state.requests.splice(0, state.requests.length - MAX_RECORDED_REQUESTS);
  }

  /** Counts an exchange the replica refused before any fault applied (bad body, missing anti-bot header…). */
  recordRejected(provider: string): void {
    this.stateOf(provider).rejected += 1;
  }

  recordPageLoad(provider: string): void {
    this.stateOf(provider).pageLoads += 1;
  }

  /** Serves the next `count` page loads of the provider as a changed page (0 clears). */
  setChangedPages(provider: string, count: number): void {
    this.stateOf(provider).changedPages = count;
  }

  /** Whether this page load is a changed page (consumes one count). Provider apps ask it on every page load. */
  takeChangedPage(provider: string): boolean {
    const state = this.stateOf(provider);
    if (state.changedPages <= 0) return false;
    state.changedPages -= 1;
    return true;
  }

  /**
   * Consumes one count of the fault at the head of the provider's queue when `eligible` accepts it, and returns the
   * plan for this exchange. A fault the caller does not accept stays queued (e.g. a page load only takes `login_wall`).
   */
  takeFault(provider: string, eligible: (fault: FaultName) => boolean = ANY_FAULT, options: { answer?: boolean } = {}): ExchangePlan {
    const state = this.stateOf(provider);
    const { totalMs, ...paced } = { ...this.defaultPacing, ...state.pacing };
    const standing: Pacing = { ...DEFAULT_PACING, ...paced };
    const head = state.faults[0];
    // page loads pass their own `eligible`; an answer exchange that filters its faults says it is one (Copilot's turn)
    const exactAnswerTime = totalMs !== undefined && totalMs > 0 && (eligible === ANY_FAULT || options.answer === true);
    enterAnswerDue(exactAnswerTime && (head === undefined || !eligible(head.fault)) ? Date.now() + (totalMs ?? 0) : null);
    if (head === undefined || !eligible(head.fault)) {
      // An answer exchange (page loads pass `eligible`) with an exact answer time: the body spreads itself to it.
      if (exactAnswerTime) return { fault: null, pacing: { delayMs: 0, chunkMs: 0 } };
      return { fault: null, pacing: standing };
    }
    head.remaining -= 1;
    if (head.remaining <= 0) state.faults.shift();
    state.faultsServed[head.fault] = (state.faultsServed[head.fault] ?? 0) + 1;
    const base = head.fault === "slow" ? SLOW_PACING : standing;
    return { fault: head.fault, pacing: { ...base, ...head.pacing } };
  }

  state(): ControlState {
    const providers: ControlState["providers"] = {};
    for (const [id, state] of this.providers) {
      const { totalMs, ...paced } = { ...this.defaultPacing, ...state.pacing };
      const pacing: Pacing = { ...DEFAULT_PACING, ...paced };
      providers[id] = {
        layout: state.layout,
        layouts: state.layouts,
        faults: state.faults.map((f) => ({
          fault: f.fault,
          remaining: f.remaining,
          delay_ms: f.pacing.delayMs ?? null,
          chunk_ms: f.pacing.chunkMs ?? null,
        })),
        pacing: {
          delay_ms: pacing.delayMs,
          chunk_ms: pacing.chunkMs,
          ...(totalMs === undefined || totalMs === 0 ? {} : { total_ms: totalMs }),
        },
        exchanges: state.exchanges,
        rejected: state.rejected,
        page_loads: state.pageLoads,
        faults_served: { ...state.faultsServed },
        requests: state.requests.map((r) => ({ ...r })),
        variation:
          state.variation === null
            ? null
            : {
                seed: state.variation.seed,
                classes: state.variation.classes,
                page_loads: state.variationLoads,
                draws: state.draws.map((draw) => draw.record()),
              },
      };
    }
    const defaults: Pacing = { ...DEFAULT_PACING, ...this.defaultPacing };
    return { default_pacing: { delay_ms: defaults.delayMs, chunk_ms: defaults.chunkMs }, providers };
  }

  private stateOf(provider: string): ProviderState {
    const state = this.providers.get(provider);
    if (state === undefined) throw new RangeError(`unknown replica provider: ${provider}`);
    return state;
  }
}

const MAX_MS = 600_000;
const milliseconds = z
  .number({ error: "must be a number of milliseconds" })
  .int({ error: "must be an integer number of milliseconds" })
  .min(0, { error: "must be >= 0" })
  .max(MAX_MS, { error: `must be <= ${MAX_MS}` });

const faultsBody = z.strictObject({
  provider: z.string({ error: "must be a string" }),
  fault: z.enum(FAULT_NAMES, { error: `must be one of ${FAULT_NAMES.join(", ")}` }).optional(),
  count: z
    .number({ error: "must be a number" })
    .int({ error: "must be an integer" })
    .min(1, { error: "must be >= 1" })
    .max(100_000, { error: "must be <= 100000" })
    .optional(),
  delay_ms: milliseconds.optional(),
  chunk_ms: milliseconds.optional(),
});

const pacingBody = z.strictObject({
  provider: z.string({ error: "must be a string" }).optional(),
  delay_ms: milliseconds.optional(),
  chunk_ms: milliseconds.optional(),
  total_ms: milliseconds.optional(),
});

const layoutBody = z.strictObject({
  provider: z.string({ error: "must be a string" }),
  layout: z.string({ error: "must be a string" }),
});

const changedPageBody = z.strictObject({
  provider: z.string({ error: "must be a string" }),
  count: z
    .number({ error: "must be a number" })
    .int({ error: "must be an integer" })
    .min(0, { error: "must be >= 0" })
    .max(100_000, { error: "must be <= 100000" })
    .optional(),
});

const variationBody = z.strictObject({
  provider: z.string({ error: "must be a string" }).optional(),
  seed: z
    .number({ error: "must be a non-negative integer or null" })
    .int({ error: "must be an integer" })
    .min(0, { error: "must be >= 0" })
    .max(2 ** 32 - 1, { error: "must be < 2^32" })
    .nullable(),
  classes: z.array(z.string().refine(isVariationClass, { error: `must be one of ${VARIATION_CLASSES.join(", ")}` })).optional(),
});

const resetBody = z.strictObject({
  provider: z.string({ error: "must be a string" }).optional(),
});

class ControlInputError extends Error {}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      if (issue.code === "unrecognized_keys") return `unknown field(s): ${issue.keys.join(", ")}`;
      const path = issue.path.map(String).join(".");
      return path === "" ? `body: ${issue.message}` : `${path}: ${issue.message}`;
    })
    .join("; ");
}

async function readBody<T>(request: Request, schema: z.ZodType<T>, emptyAllowed: boolean): Promise<T> {
  const text = await request.text();
  let json: unknown;
  if (text.trim() === "" && emptyAllowed) json = {};
  else {
    try {
      json = JSON.parse(text);
    } catch {
      throw new ControlInputError("body: must be a JSON object");
    }
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new ControlInputError("body: must be a JSON object");
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ControlInputError(describeIssues(parsed.error));
  return parsed.data;
}

function pacingFrom(body: { delay_ms?: number | undefined; chunk_ms?: number | undefined }): Partial<Pacing> {
  const pacing: Partial<Pacing> = {};
  if (body.delay_ms !== undefined) pacing.delayMs = body.delay_ms;
  if (body.chunk_ms !== undefined) pacing.chunkMs = body.chunk_ms;
  return pacing;
}

/** The `/__control/*` routes, to be mounted at the server root. */
export function createControlApp(controller: FaultController): Hono {
  const app = new Hono();

  const knownProvider = (provider: string): string => {
    if (!controller.providerIds().includes(provider)) {
      throw new ControlInputError(`provider: must be one of ${controller.providerIds().join(", ")}`);
    }
    return provider;
  };

  app.post("/faults", async (c) => {
    const body = await readBody(c.req.raw, faultsBody, false);
    const provider = knownProvider(body.provider);
    const pacing = pacingFrom(body);
    if (body.fault === undefined) {
      if (body.count !== undefined) throw new ControlInputError("count: only allowed together with fault");
      if (Object.keys(pacing).length === 0) throw new ControlInputError("body: needs fault, delay_ms or chunk_ms");
      controller.setPacing(provider, pacing);
    } else {
      controller.addFault(provider, body.fault, body.count ?? 1, pacing);
    }
    return c.json(controller.state());
  });

  app.post("/pacing", async (c) => {
    const body = await readBody(c.req.raw, pacingBody, false);
    const pacing: StandingPacing = pacingFrom(body);
    if (body.total_ms !== undefined) pacing.totalMs = body.total_ms;
    if (Object.keys(pacing).length === 0) throw new ControlInputError("body: needs delay_ms, chunk_ms or total_ms");
    controller.setPacing(body.provider === undefined ? undefined : knownProvider(body.provider), pacing);
    return c.json(controller.state());
  });

  app.post("/layout", async (c) => {
    const body = await readBody(c.req.raw, layoutBody, false);
    try {
      controller.setLayout(knownProvider(body.provider), body.layout);
    } catch (error) {
      if (error instanceof RangeError) throw new ControlInputError(error.message);
      throw error;
    }
    return c.json(controller.state());
  });

  app.post("/changed-page", async (c) => {
    const body = await readBody(c.req.raw, changedPageBody, false);
    controller.setChangedPages(knownProvider(body.provider), body.count ?? 1);
    return c.json(controller.state());
  });

  app.post("/variation", async (c) => {
    const body = await readBody(c.req.raw, variationBody, false);
    const classes = (body.classes ?? [...VARIATION_CLASSES]).filter(isVariationClass);
    controller.setVariation(
      body.provider === undefined ? undefined : knownProvider(body.provider),
      body.seed === null ? null : { seed: body.seed, classes },
    );
    return c.json(controller.state());
  });

  app.post("/reset", async (c) => {
    const body = await readBody(c.req.raw, resetBody, true);
    controller.reset(body.provider === undefined ? undefined : knownProvider(body.provider));
    return c.json(controller.state());
  });

  app.get("/state", (c) => c.json(controller.state()));

  app.onError((error, c) => {
    if (error instanceof ControlInputError) return c.json({ detail: error.message }, 400);
    console.error("replica control error", error);
    return c.json({ detail: "internal error in the replica control API" }, 500);
  });
  app.notFound((c) => c.json({ detail: `no control route ${c.req.method} ${c.req.path}` }, 404));

  return app;
}
