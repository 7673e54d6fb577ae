/**
 * The body of `POST /rufus/cl/streaming`, built from a scenario exactly as amazon_rufus.md §3 shows it: SSE-style
 * blocks `id:CHUNK-<n>` / `event: <name>` / `data: <one JSON line>`, each ended by a blank line, no end event (the
 * response simply ends). Exported so that tests can build the same bytes the replica sends.
 */
import type { RufusCard, RufusCardGroup, RufusNode, RufusScenario, RufusStep } from "./scenarios";

export type RufusBlockKind = "echo" | "prose" | "cards" | "footers" | "pills" | "raw" | "broken";

export interface RufusBlock {
  kind: RufusBlockKind;
  id: string;
  event: string;
  /** The `data:` line's value; JSON without raw newlines, except for a `raw` or `broken` block. */
  data: string;
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text as HTML, the way the site's templates write it (named entities, `&#39;` for the apostrophe). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

/** The customer-question echo every answer starts with (sheet §3, first block). */
export function questionEchoHtml(prompt: string): string {
  return `<div class="rufus-customer-text-wrap"><span class="rufus-q"><span>${escapeHtml(prompt)}</span></span></div>`;
}

export function pillsHtml(labels: readonly string[]): string {
  return `<div class="rufus-pills">${labels.map((label) => `<button class="rufus-pill">${escapeHtml(label)}</button>`).join("")}</div>`;
}

/** One product card as a UI node tree: a box whose onPress opens the product, image first, then the details box. */
export function cardNode(card: RufusCard): RufusNode {
  const details: RufusNode[] = [
    ...card.badges.map((badge): RufusNode => ({ type: "text", children: [badge] })),
    ...(card.title === null ? [] : [{ type: "text", lines: 2, children: [card.title] }]),
    ...(card.rating === null ? [] : [{ type: "rating", valueString: card.rating.valueString, count: card.rating.count }]),
    ...card.prices.map((price): RufusNode => ({ type: "price", ...price })),
  ];
  return {
    type: "box",
    onPress: { url: card.href },
    children: [
      { type: "image", altText: card.altText },
      { type: "box", children: details },
    ],
  };
}

/** The id of the footer group of the card at `index` of `group`. */
export function footerGroupId(group: RufusCardGroup, index: number): string {
  const card = group.cards[index];
  return `${group.groupId}_asinFooter_${group.footerIds === "asin" && card !== undefined ? card.asin : String(index)}`;
}

const affordance = (sections: readonly string[]): string => JSON.stringify({ sections: sections.map((data) => ({ content: { data } })) });
const inference = (patches: readonly unknown[]): string => JSON.stringify({ patches });

function blocksOfStep(step: RufusStep): Array<Omit<RufusBlock, "id"> & { id?: string }> {
  switch (step.kind) {
    case "prose":
      return [
        {
          kind: "prose",
          event: "inference",
          data: inference([{ groupId: step.groupId, op: step.op, path: "/", value: step.tree ?? { type: "text", children: [step.text] } }]),
        },
      ];
    case "cards": {
      const { groupId, cards } = step.group;
      if (step.delivery === "whole") {
        return [
          {
            kind: "cards",
            event: "inference",
            data: inference([{ groupId, op: "add", path: "/", value: { type: "box", children: cards.map(cardNode) } }]),
          },
        ];
      }
      return [
        { kind: "cards", event: "inference", data: inference([{ groupId, op: "add", path: "/", value: { type: "box", children: [] } }]) },
        ...cards.map((card) => ({
          kind: "cards" as const,
          event: "inference",
          data: inference([{ groupId, op: "add", path: "/children/-", value: cardNode(card) }]),
        })),
      ];
    }
    case "footers": {
      const patches = step.group.cards.flatMap((card, index) =>
        card.footer === null
          ? []
          : [{ groupId: footerGroupId(step.group, index), op: "replace", path: "/", value: { type: "text", children: [card.footer] } }],
      );
      if (step.order === "reversed") patches.reverse();
      return [{ kind: "footers", event: "inference", data: inference(patches) }];
    }
    case "pills":
      return [
        {
          kind: "pills",
          event: "affordance",
          data: affordance([...(step.beside === undefined ? [] : [step.beside]), pillsHtml(step.labels)]),
        },
      ];
    case "raw":
      return [{ kind: "raw", event: step.event, data: step.data, ...(step.id === undefined ? {} : { id: step.id }) }];
  }
}

/**
 * Every block of a normal answer, in order; ids are `CHUNK-1`, `CHUNK-2`, … (or `blockId(n)` of a fuzzed page) unless
 * a raw step names its own.
 */
export function buildRufusBlocks(
  scenario: RufusScenario,
  prompt: string,
  blockId: (n: number) => string = (n) => `CHUNK-${n}`,
): RufusBlock[] {
  const unnumbered = [
    { kind: "echo" as const, event: "affordance", data: affordance([questionEchoHtml(prompt)]) },
    ...scenario.steps.flatMap(blocksOfStep),
  ];
  return unnumbered.map((block, index) => ({ ...block, id: "id" in block && block.id !== undefined ? block.id : blockId(index + 1) }));
}

export function blockText(block: RufusBlock): string {
  return `id:${block.id}\nevent: ${block.event}\ndata: ${block.data}\n\n`;
}

export function blocksToText(blocks: readonly RufusBlock[]): string {
  return blocks.map(blockText).join("");
}

/** Faults that change the body of an otherwise normal 200 answer. */
export type RufusStreamFault = "malformed_stream" | "disconnect" | "empty_answer";

export interface RufusBody {
  bytes: Uint8Array;
  /** `eof`: the response ends normally; `disconnect`: the connection is cut after the last byte. */
  ending: "eof" | "disconnect";
}

/**
 * The body of one exchange. `empty_answer`: the echo and an empty prose group, nothing else. `malformed_stream`: the
 * first half of the blocks, then an inference block whose `data:` line is cut JSON, then EOF. `disconnect`: the first
 * half of the blocks plus the first half of the next block's bytes, then the connection is cut.
 */
export function renderRufusBody(scenario: RufusScenario, prompt: string, fault: RufusStreamFault | null): RufusBody {
  const encoder = new TextEncoder();
  const blocks = buildRufusBlocks(scenario, prompt);
  if (fault === null) return { bytes: encoder.encode(blocksToText(blocks)), ending: "eof" };
  if (fault === "empty_answer") {
    const empty: RufusBlock[] = [
      blocks[0] ?? { kind: "echo", id: "CHUNK-1", event: "affordance", data: affordance([questionEchoHtml(prompt)]) },
      {
        kind: "prose",
        id: "CHUNK-2",
        event: "inference",
        data: inference([{ groupId: "markdown_processor_0", op: "add", path: "/", value: { type: "text", children: [] } }]),
      },
    ];
    return { bytes: encoder.encode(blocksToText(empty)), ending: "eof" };
  }
  // at least the echo and one answer block go out before the fault
  const cut = Math.max(2, Math.ceil(blocks.length / 2));
  const prefix = blocks.slice(0, cut);
  const next = blocks[cut] ?? blocks.at(-1);
  if (fault === "malformed_stream") {
    const nextData = next !== undefined && next.event === "inference" ? next.data : (prefix.at(-1)?.data ?? "{}");
    const broken: RufusBlock = {
      kind: "broken",
      id: `CHUNK-${cut + 1}`,
      event: "inference",
      data: nextData.slice(0, Math.floor(nextData.length / 2)),
    };
    return { bytes: encoder.encode(blocksToText([...prefix, broken])), ending: "eof" };
  }
  const head = encoder.encode(blocksToText(prefix));
  const tail = encoder.encode(next === undefined ? "" : blockText(next));
  const bytes = new Uint8Array(head.length + Math.floor(tail.length / 2));
  bytes.set(head, 0);
  bytes.set(tail.subarray(0, Math.floor(tail.length / 2)), head.length);
  return { bytes, ending: "disconnect" };
}
