/**
 * A response's `evidence` (or a failed job's) as the result viewer shows it. The files are linked by path
 * (`/evidence/{token}/{file}`), not by the absolute URL the API answered: the dashboard's pages then load the
 * screenshot and offer the downloads from their own origin, which its Content-Security-Policy (`img-src 'self'`), the
 * files' `Cross-Origin-Resource-Policy: same-origin` and the `download` attribute all require, whatever address
 * `PUBLIC_BASE_URL` gives the API. Anything that is not one of our evidence files is not linked at all.
 */
import { EVIDENCE_KINDS, type EvidenceKind } from "../../evidence/evidence-kinds";
import { evidencePathOf } from "../../evidence/evidence-store";
import { parseHttpUrl } from "../../util/http-url";
import { isRecord, listOf } from "../../util/json-record";

const URL_FIELDS = { screenshot: "screenshot_url", html: "html_url", stream: "stream_url" } as const;

export interface ShownEvidenceFile {
  kind: EvidenceKind;
  /** Same-origin path of the file. */
  path: string;
  /** The name a download is saved under (screenshot.png, page.html, stream.json). */
  fileName: string;
}

export interface ShownEvidence {
  files: ShownEvidenceFile[];
  missing: Array<{ kind: string; reason: string }>;
  capturedAt: string;
  expiresAt: string;
  /** Past `expires_at` when the page was rendered: the files answer 404 by now. */
  expired: boolean;
}

function evidencePath(value: unknown): { path: string; fileName: string } | null {
  if (typeof value !== "string") return null;
  const url = parseHttpUrl(value);
  const named = url === null ? null : evidencePathOf(url.pathname);
  if (url === null || named === null) return null;
  return { path: url.pathname, fileName: named.fileName };
}

/** The evidence of a response body or job view (`value` is its `evidence` field), or null when it has none. */
export function readShownEvidence(value: unknown, now: number): ShownEvidence | null {
  if (!isRecord(value)) return null;
  const { captured_at: capturedAt, expires_at: expiresAt } = value;
  if (typeof capturedAt !== "string" || typeof expiresAt !== "string") return null;
  const files: ShownEvidenceFile[] = [];
  for (const kind of EVIDENCE_KINDS) {
    const file = evidencePath(value[URL_FIELDS[kind]]);
    if (file !== null) files.push({ kind, ...file });
  }
  const missing = listOf(value.missing).flatMap((item) =>
    isRecord(item) && typeof item.kind === "string" && typeof item.reason === "string" ? [{ kind: item.kind, reason: item.reason }] : [],
  );
  const expiry = Date.parse(expiresAt);
  // an unreadable expiry is treated as past: never an image that would not load
  return { files, missing, capturedAt, expiresAt, expired: !Number.isFinite(expiry) || now >= expiry };
}
