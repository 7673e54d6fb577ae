/**
 * What a caller can ask to keep of a scrape besides its answer (docs/evidence.md): a screenshot of the answer page as
 * the provider rendered it, the page's HTML at completion, and the exchanges the parser read (redacted like a capture
 * file). Asked with the `X-Evidence` header (sync and job endpoints), a batch item's `evidence` field, or the account's
 * default. Pure: the request surfaces, the job record and the pipeline all read the same list and the same parser.
 */
import { InvalidParameterError } from "../errors";

export const EVIDENCE_KINDS = ["screenshot", "html", "stream"] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

export const EVIDENCE_HEADER = "X-Evidence";
/** The header value (or batch field value) that turns the account's default off for one request. */
export const NO_EVIDENCE = "none";

/** What one scrape keeps: the kinds asked for a successful answer, and whether a failed scrape keeps its page. */
export interface EvidenceRequest {
  kinds: readonly EvidenceKind[];
  /** The account keeps a screenshot and the HTML of a failed scrape (an account setting, never per request). */
  onFailure: boolean;
}

export const NO_EVIDENCE_REQUEST: EvidenceRequest = { kinds: [], onFailure: false };

function isEvidenceKind(value: string): value is EvidenceKind {
  return EVIDENCE_KINDS.some((kind) => kind === value);
}

const ACCEPTED = `${EVIDENCE_KINDS.join(", ")} (comma-separated), or ${NO_EVIDENCE}`;

/**
 * A comma-separated list of kinds, read leniently (case, spaces, repeats, `all`) and validated strictly: an unknown
 * kind is a 400 naming `field` and the accepted values. `none` alone is the empty list.
 */
function parseEvidenceKinds(field: string, value: string): EvidenceKind[] {
  const names = value
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  if (names.length === 0) throw new InvalidParameterError(`${field}: must not be empty; accepted: ${ACCEPTED}`);
  if (names.length === 1 && names[0] === NO_EVIDENCE) return [];
  const kinds = new Set<EvidenceKind>();
  for (const name of names) {
    if (name === "all") {
      for (const kind of EVIDENCE_KINDS) kinds.add(kind);
    } else if (isEvidenceKind(name)) kinds.add(name);
    else throw new InvalidParameterError(`${field}: unknown evidence kind "${name.slice(0, 40)}"; accepted: ${ACCEPTED}`);
  }
  // in the documented order, whatever order they were asked in
  return EVIDENCE_KINDS.filter((kind) => kinds.has(kind));
}

/** The `X-Evidence` header: undefined when absent (the account's default applies), else the kinds it names. */
export function parseEvidenceHeader(value: string | undefined): EvidenceKind[] | undefined {
  if (value === undefined) return undefined;
  return parseEvidenceKinds(EVIDENCE_HEADER, value);
}

/** A batch item's `evidence` field: a header-style string or an array of kinds; undefined when absent. */
export function parseEvidenceField(field: string, value: unknown): EvidenceKind[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return parseEvidenceKinds(field, value);
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    return value.length === 0 ? [] : parseEvidenceKinds(field, value.join(","));
  }
  throw new InvalidParameterError(`${field}: must be a list of evidence kinds such as ["screenshot", "html"]; accepted: ${ACCEPTED}`);
}

/** The stored form of a list of kinds (account settings, job records): comma-separated. */
export function kindsToText(kinds: readonly EvidenceKind[]): string {
  return kinds.join(",");
}

/** A stored list read back; anything unknown is dropped (a stored value is not a client's mistake). */
export function kindsFromText(text: string | null | undefined): EvidenceKind[] {
  const names = new Set((text ?? "").split(",").map((name) => name.trim()));
  return EVIDENCE_KINDS.filter((kind) => names.has(kind));
}
