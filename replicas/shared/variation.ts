/**
 * Seeded page fuzzing for every replica (issue 29). A variation setting `{seed, classes}` makes each page load of a
 * provider draw, independently and reproducibly, from the classes below; the provider's page then behaves as the draw
 * says (the generic part in client/variation-runtime.js, the provider's own lists and sheet alternatives in its client
 * script). Every class stays within what the provider's sheet allows or what any web page may do; VARIATION_GROUNDS
 * says which. The same seed and page-load number always draw the same page, so a failure can be replayed.
 *
 * Each class has its own random stream: switching one class off never changes what the others draw.
 */

export const VARIATION_CLASSES = [
  "hydration",
  "late_lists",
  "rollout_siblings",
  "decoration",
  "interruptions",
  "controlled_inputs",
  "sheet_alternatives",
] as const;
export type VariationClass = (typeof VARIATION_CLASSES)[number];

export function isVariationClass(value: string): value is VariationClass {
  return VARIATION_CLASSES.some((name) => name === value);
}

/** Why each class is fair game: the general web behaviour (or sheet rule) that allows it. */
export const VARIATION_GROUNDS: Readonly<Record<VariationClass, string>> = {
  hydration:
    "Every provider page is a client-rendered app (sheets §2): controls render or become interactive after the framework hydrates, seconds after DOMContentLoaded on a slow device; load may fire late; a skeleton with a progressbar may show first.",
  late_lists:
    "Sheets §2: sources, chips, cards, pills and related questions render after the text settles (Gemini: 'citations may appear a few seconds after'); a control that opens a list (Sources button, 'N sites', side panel) may be the only way to see it.",
  rollout_siblings:
    "Sites ship features behind staged rollouts (providers/README: 'sites change often'): a newer input, button or menu with a similar role may sit before the real one; the sheet's anchors still name the real one.",
  decoration:
    "Accessible names are computed from text, which sites restyle: other case, padding and no-break spaces, badges ('New'), icons, descriptions; class names are build hashes that rotate every deploy; extra wrapper elements.",
  interruptions:
    "Any site may show a cookie or consent dialog, a survey or promo modal, a toast or an 'update available' banner at any moment; none of them is a sign-in wall (sheets §5 name the walls' own signatures).",
  controlled_inputs:
    "Composers are framework-controlled (React, ProseMirror, Quill): a value set by script is not state, only trusted input counts, and an input may be read-only while it initialises.",
  sheet_alternatives:
    "Every point a sheet marks (unverified) or gives alternatives for may be taken either way by the real site (providers/README: 'scrapers must tolerate their absence and variants').",
};

/** What a replica is asked to fuzz: the seed and the classes switched on (every class by default). */
export interface VariationSetting {
  seed: number;
  classes: readonly VariationClass[];
}

/** What one page load drew, kept for the control state so a sweep can report failures per class. */
export interface DrawRecord {
  page_load: number;
  seed: number;
  /** Per class that changed something on this page: what it did, in words. */
  applied: Partial<Record<VariationClass, string[]>>;
}

/** 32-bit FNV-1a: turns the seed, provider, page load and class into a stream seed (and a seed into a scenario). */
export function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    value ^= text.charCodeAt(index);
    value = Math.imul(value, 0x01000193) >>> 0;
  }
  return value;
}

/** mulberry32: small, fast and good enough to spread page variants; a function of its seed alone. */
function randomStream(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The random choices of one page load. Ask through the class that makes the choice: a class that is off answers
 * "no" to every chance and the first option of every pick, and records nothing.
 */
export class VariationDraw {
  private readonly streams = new Map<VariationClass, () => number>();
  private readonly applied: Partial<Record<VariationClass, string[]>> = {};

  constructor(
    readonly provider: string,
    readonly seed: number,
    readonly pageLoad: number,
    private readonly enabled: ReadonlySet<VariationClass>,
  ) {}

  /** Whether a class is switched on for this page (before any chance). */
  on(variationClass: VariationClass): boolean {
    return this.enabled.has(variationClass);
  }

  /** A number in [0, 1) from the class's stream; always 0 when the class is off. */
  random(variationClass: VariationClass): number {
    if (!this.on(variationClass)) return 0;
    let stream = this.streams.get(variationClass);
    if (stream === undefined) {
      stream = randomStream(hash(`${this.seed}:${this.provider}:${this.pageLoad}:${variationClass}`));
      this.streams.set(variationClass, stream);
    }
    return stream();
  }

  /** True with probability `p` when the class is on. */
  chance(variationClass: VariationClass, p: number): boolean {
    return this.on(variationClass) && this.random(variationClass) < p;
  }

  /** An integer in [min, max] (min when the class is off). */
  int(variationClass: VariationClass, min: number, max: number): number {
    return min + Math.floor(this.random(variationClass) * (max - min + 1));
  }

  /** One of `options` (the first when the class is off). */
  pick<T>(variationClass: VariationClass, options: readonly [T, ...T[]]): T {
    const index = Math.floor(this.random(variationClass) * options.length);
    return options[Math.min(index, options.length - 1)] ?? options[0];
  }

  /** Records what the class changed on this page (shown in the control state and the fuzz report). */
  note(variationClass: VariationClass, what: string): void {
    if (!this.on(variationClass)) return;
    const list = this.applied[variationClass] ?? [];
    list.push(what);
    this.applied[variationClass] = list;
  }

  record(): DrawRecord {
    const applied: Partial<Record<VariationClass, string[]>> = {};
    for (const name of VARIATION_CLASSES) {
      const list = this.applied[name];
      if (list !== undefined) applied[name] = [...list];
    }
    return { page_load: this.pageLoad, seed: this.seed, applied };
  }
}

/**
 * Parses `--variation <seed>` (and `--variation-classes a,b`) from a command line; null when absent.
 * Throws a RangeError naming the flag when a value is unusable.
 */
export function variationFromArgs(args: readonly string[]): VariationSetting | null {
  const seedIndex = args.indexOf("--variation");
  if (seedIndex === -1) return null;
  const seed = Number(args[seedIndex + 1]);
  if (!Number.isInteger(seed) || seed < 0) throw new RangeError("--variation: must be followed by a non-negative integer seed");
  const classIndex = args.indexOf("--variation-classes");
  if (classIndex === -1) return { seed, classes: VARIATION_CLASSES };
  const names = (args[classIndex + 1] ?? "").split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !isVariationClass(name));
  if (unknown.length > 0)
    throw new RangeError(`--variation-classes: unknown ${unknown.join(", ")}; known: ${VARIATION_CLASSES.join(", ")}`);
  return { seed, classes: names.filter(isVariationClass) };
}
