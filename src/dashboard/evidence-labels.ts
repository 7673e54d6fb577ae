/** How the dashboard names each evidence kind (the overview's card, the playground, the result viewer). */
import type { EvidenceKind } from "../evidence/evidence-kinds";

export const EVIDENCE_KIND_LABELS: Readonly<Record<EvidenceKind, string>> = {
  screenshot: "Screenshot",
  html: "Page HTML",
  stream: "Stream",
};

/** "Screenshot, Page HTML", or "none". */
export function describeEvidenceKinds(kinds: readonly EvidenceKind[]): string {
  return kinds.length === 0 ? "none" : kinds.map((kind) => EVIDENCE_KIND_LABELS[kind]).join(", ");
}
