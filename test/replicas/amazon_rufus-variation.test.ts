/**
 * Page fuzzing of the Rufus replica (replicas/amazon_rufus/variation.ts, issue 29): the same seed draws the same page;
 * a class switched off changes nothing of that class; with fuzzing off the page carries nothing of it; the wire
 * alternatives keep every §4 field of the scenario. Also: every oracle case's prompt selects its own scenario.
 */
import { describe, expect, it } from "vitest";
import { marketplaceOf } from "../../replicas/amazon_rufus/marketplaces";
import { renderRufusPage } from "../../replicas/amazon_rufus/page";
import { allCards, finalProse, pickRufusScenario, pillLabels, RUFUS_SCENARIOS } from "../../replicas/amazon_rufus/scenarios";
import { buildRufusBlocks } from "../../replicas/amazon_rufus/stream";
import { blockId, drawRufusVariation, NO_RUFUS_VARIATION, varyScenario } from "../../replicas/amazon_rufus/variation";
import { VARIATION_CLASSES, type VariationClass, VariationDraw } from "../../replicas/shared/variation";
import { amazonRufusOracle } from "../support/oracles/amazon_rufus";
import { useReplicaServer } from "../support/replica-control";

const PROVIDER = "amazon_rufus";
const replica = useReplicaServer();

/** A store page with its per-load token blanked (the only thing that differs between two loads of the same page). */
async function storePage(domain = "amazon.com"): Promise<string> {
  const html = await (await fetch(`${replica.url}/amazon_rufus/${domain}/`)).text();
  return html.replace(/"csrfToken":"[^"]+"/, '"csrfToken":"…"');
}

async function draws(): Promise<unknown> {
  return (await replica.control.state()).providers[PROVIDER]?.variation?.draws ?? null;
}

const drawFor = (seed: number, classes: readonly VariationClass[] = VARIATION_CLASSES): VariationDraw =>
  new VariationDraw(PROVIDER, seed, 1, new Set(classes));

describe("fuzzed store pages", () => {
  it("the same seed draws the same page, and what it drew is recorded per class", async () => {
    await replica.control.postOk("variation", { provider: PROVIDER, seed: 7 });
    const first = [await storePage(), await storePage("amazon.de")];
    const recorded = await draws();
    await replica.control.postOk("variation", { provider: PROVIDER, seed: 7 });
    expect([await storePage(), await storePage("amazon.de")]).toEqual(first);
    expect(await draws()).toEqual(recorded);
    expect(JSON.stringify(recorded)).toMatch(/late_lists|sheet_alternatives/);
    // another seed, another page (over a few seeds at least one differs)
    const others = new Set<string>();
    for (const seed of [8, 9, 10]) {
      await replica.control.postOk("variation", { provider: PROVIDER, seed });
      others.add(await storePage());
    }
    expect([...others].some((page) => page !== first[0])).toBe(true);
  });

  it("with fuzzing off the page is the layout's page, with no fuzzing script", async () => {
    await replica.control.postOk("variation", { provider: PROVIDER, seed: 3 });
    expect(await storePage()).toContain("applyRufusVariation");
    await replica.control.postOk("variation", { provider: PROVIDER, seed: null });
    const off = await storePage();
    expect(off).not.toContain("applyRufusVariation");
    expect(off).not.toContain("applyPageVariation");
    const marketplace = marketplaceOf("amazon.com");
    if (marketplace === undefined) throw new Error("amazon.com is not served");
    const plain = renderRufusPage({ marketplace, layout: "classic", root: "/amazon_rufus/amazon.com/", csrfToken: "…", product: null });
    expect(off).toBe(plain);
  });

  it("a class that is off changes nothing of that class, and the other classes draw as before", () => {
    for (let seed = 1; seed <= 40; seed += 1) {
      const all = drawRufusVariation(drawFor(seed));
      const noLists = drawRufusVariation(
        drawFor(
          seed,
          VARIATION_CLASSES.filter((name) => name !== "late_lists"),
        ),
      );
      expect(noLists.page.lateLists).toBeNull();
      expect([noLists.wire.cardsAppended, noLists.wire.pillsPauseMs]).toEqual([false, 0]);
      expect({ ...noLists.page, lateLists: all.page.lateLists }).toEqual(all.page);
      const noAlternatives = drawRufusVariation(
        drawFor(
          seed,
          VARIATION_CLASSES.filter((name) => name !== "sheet_alternatives"),
        ),
      );
      expect({ ...noAlternatives.page, lateLists: null }).toEqual(NO_RUFUS_VARIATION.page);
      expect({ ...noAlternatives.wire, cardsAppended: false, pillsPauseMs: 0 }).toEqual(NO_RUFUS_VARIATION.wire);
      expect(noAlternatives.page.lateLists).toEqual(all.page.lateLists);
      const none = drawFor(seed, []);
      expect(drawRufusVariation(none)).toEqual(NO_RUFUS_VARIATION);
      expect(none.record().applied).toEqual({});
    }
  });

  it("every draw is noted on its class", () => {
    for (let seed = 1; seed <= 20; seed += 1) {
      const draw = drawFor(seed);
      const variation = drawRufusVariation(draw);
      const applied = draw.record().applied;
      expect(applied.sheet_alternatives?.length).toBe(1);
      expect(applied.late_lists === undefined).toBe(variation.page.lateLists === null);
    }
  });
});

describe("wire alternatives keep every §4 field", () => {
  it("card ASINs, titles, counts, footers and pills are the scenario's; ids, ratings, urls and carriers vary", () => {
    for (let seed = 1; seed <= 60; seed += 1) {
      const { wire } = drawRufusVariation(drawFor(seed));
      for (const scenario of RUFUS_SCENARIOS) {
        const varied = varyScenario(scenario, wire, "amazon.de");
        expect(finalProse(varied)).toEqual(finalProse(scenario));
        expect(pillLabels(varied)).toEqual(pillLabels(scenario));
        const project = (cards: ReturnType<typeof allCards>) =>
          cards.map((card) => [
            card.asin,
            card.title,
            card.altText,
            card.rating?.count ?? null,
            card.footer,
            /\/dp\/([A-Z0-9]{10})/.exec(card.href)?.[1],
          ]);
        expect(project(allCards(varied))).toEqual(project(allCards(scenario)));
        const blocks = buildRufusBlocks(varied, "q", (n) => blockId(wire.idStyle, n));
        expect(new Set(blocks.map((block) => block.id)).size).toBe(blocks.length);
      }
    }
  });

  it("ratings as text in the marketplace's words", () => {
    const wire = { ...NO_RUFUS_VARIATION.wire, ratingAsText: true };
    const rating = (prompt: string, domain: string) =>
      allCards(varyScenario(pickRufusScenario(prompt), wire, domain))[0]?.rating?.valueString;
    expect(rating("one-product", "amazon.com")).toBe("4.5 out of 5 stars");
    expect(rating("kaffeemaschine", "amazon.de")).toBe("4,5 von 5 Sternen");
    expect(rating("炊飯器", "amazon.co.jp")).toBe("5つ星のうち4.3");
  });
});

describe("oracle", () => {
  it("each case's prompt selects its own scenario, and every scenario has a case", () => {
    const cases = amazonRufusOracle.cases();
    for (const oracleCase of cases) {
      const id = oracleCase.id.replace(/ \([A-Z]{2}\)$/, "");
      expect(pickRufusScenario(oracleCase.params.prompt ?? "").id, oracleCase.id).toBe(id);
    }
    for (const scenario of RUFUS_SCENARIOS) expect(cases.some((oracleCase) => oracleCase.id.startsWith(`${scenario.id} (`))).toBe(true);
  });
});
