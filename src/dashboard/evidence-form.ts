/**
 * The overview's evidence form (src/dashboard/evidence-card.tsx) read into the account's evidence default: one checkbox
 * per kind and one for failure evidence. A checkbox the browser does not send is off; a field sent with any value but
 * the checkbox's own is refused (a hand-written post), and nothing is saved.
 */
import { EVIDENCE_KINDS, type EvidenceKind, type EvidenceRequest } from "../evidence/evidence-kinds";

/** The value every checkbox of the form sends when it is checked. */
export const CHECKED_VALUE = "on";
export const FAILURE_EVIDENCE_FIELD = "failure_evidence";

/** The form field of a kind's checkbox. */
export function evidenceKindField(kind: EvidenceKind): string {
  return `evidence_${kind}`;
}

export type EvidenceFormOutcome = { setting: EvidenceRequest } | { error: string };

function isChecked(fields: Readonly<Record<string, string>>, name: string): boolean | null {
  const value = fields[name];
  if (value === undefined) return false;
  return value === CHECKED_VALUE ? true : null;
}

export function readEvidenceForm(fields: Readonly<Record<string, string>>): EvidenceFormOutcome {
  const kinds: EvidenceKind[] = [];
  for (const kind of EVIDENCE_KINDS) {
    const checked = isChecked(fields, evidenceKindField(kind));
    if (checked === null) return { error: `${evidenceKindField(kind)}: must be "${CHECKED_VALUE}" (checked) or left out (unchecked).` };
    if (checked) kinds.push(kind);
  }
  const onFailure = isChecked(fields, FAILURE_EVIDENCE_FIELD);
  if (onFailure === null) return { error: `${FAILURE_EVIDENCE_FIELD}: must be "${CHECKED_VALUE}" (checked) or left out (unchecked).` };
  return { setting: { kinds, onFailure } };
}
