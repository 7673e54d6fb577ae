/**
 * Evidence files in R2 (the `EVIDENCE` binding; local under `wrangler dev`): each at an unguessable URL,
 * `{base_url}/evidence/{token}/{file}`, for 24 hours like `markdown_url`. The token is 24 random bytes and the only
 * thing naming the files: whoever holds the URL can read them, nobody can list or guess them. Expiry is checked on every
 * read (an object past its `expires_at` answers 404 and is deleted) and the 10-minute cron sweeps what nobody read;
 * a deployment also sets the bucket's lifecycle rule (docs/evidence.md).
 */
import type { EvidenceKind } from "./evidence-kinds";
import { randomToken } from "../util/crypto";
import { logLine, type LogSubject } from "../util/log-line";
import { isoTimestamp } from "../util/time";

export const EVIDENCE_TTL_MS = 24 * 60 * 60 * 1000;
/** No evidence file is larger: a screenshot is downscaled or re-encoded to fit, an HTML or stream file over it is left out. */
export const MAX_EVIDENCE_FILE_BYTES = 5 * 1024 * 1024;

/** The file name each kind is served under (a screenshot's extension follows its encoding). */
export const EVIDENCE_FILE_NAMES = {
  screenshot: { "image/png": "screenshot.png", "image/jpeg": "screenshot.jpg" },
  html: "page.html",
  stream: "stream.json",
} as const;

export interface EvidenceFile {
  kind: EvidenceKind;
  fileName: string;
  contentType: string;
  body: Uint8Array;
}

export interface MissingEvidence {
  kind: EvidenceKind;
  reason: string;
}

/** `evidence` of a response (and of a failed job): the URLs of what was kept, and what was asked but is missing. */
export interface EvidenceView {
  screenshot_url: string | null;
  html_url: string | null;
  stream_url: string | null;
  captured_at: string;
  expires_at: string;
  missing: MissingEvidence[];
}

export interface EvidenceSet {
  files: EvidenceFile[];
  missing: MissingEvidence[];
  /** When the page was captured (ms since epoch). */
  capturedAt: number;
}

interface Owner {
  accountId: string;
  jobId: string;
  logSubject?: LogSubject;
}

/** Every file name evidence is served under, from the table above. */
export const EVIDENCE_FILES = [...Object.values(EVIDENCE_FILE_NAMES.screenshot), EVIDENCE_FILE_NAMES.html, EVIDENCE_FILE_NAMES.stream];

/** What `randomToken(24)` writes: 32 base64url characters. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;

/** Whether `token` and `fileName` could name stored evidence (anything else is never looked up). */
function isEvidenceName(token: string, fileName: string): boolean {
  return TOKEN_PATTERN.test(token) && EVIDENCE_FILES.some((name) => name === fileName);
}

/** The token and file of an evidence URL's path (`/evidence/{token}/{file}`), or null for any other path. */
export function evidencePathOf(pathname: string): { token: string; fileName: string } | null {
  const [empty, route, token, fileName, ...rest] = pathname.split("/");
  if (empty !== "" || route !== "evidence" || token === undefined || fileName === undefined || rest.length > 0) return null;
  return isEvidenceName(token, fileName) ? { token, fileName } : null;
}

function objectKey(token: string, fileName: string): string {
  return `${token}/${fileName}`;
}

/**
 * Writes the files (each tried twice) and answers the view. A file that cannot be written is listed as missing with
 * why: evidence never fails the answer it belongs to.
 */
export async function storeEvidence(bucket: Pick<R2Bucket, "put">, baseUrl: string, set: EvidenceSet, owner: Owner): Promise<EvidenceView> {
  const token = randomToken(24);
  const expiresAt = set.capturedAt + EVIDENCE_TTL_MS;
  const missing = [...set.missing];
  const urls: Partial<Record<EvidenceKind, string>> = {};
  await Promise.all(
    set.files.map(async (file) => {
      if (file.body.byteLength > MAX_EVIDENCE_FILE_BYTES) {
        missing.push({ kind: file.kind, reason: `larger than the ${MAX_EVIDENCE_FILE_BYTES / 1024 / 1024} MiB limit of an evidence file` });
        return;
      }
      const put = () =>
        bucket.put(objectKey(token, file.fileName), file.body, {
          httpMetadata: { contentType: file.contentType },
          customMetadata: { expires_at: String(expiresAt), account_id: owner.accountId, job_id: owner.jobId },
        });
      try {
        await put().catch(put);
        urls[file.kind] = `${baseUrl}/evidence/${token}/${file.fileName}`;
      } catch (cause) {
        console.error(logLine(owner.logSubject, `could not write the ${file.kind} evidence`), cause);
        missing.push({ kind: file.kind, reason: "the evidence store did not accept the file (a storage error); the answer is unaffected" });
      }
    }),
  );
  return {
    screenshot_url: urls.screenshot ?? null,
    html_url: urls.html ?? null,
    stream_url: urls.stream ?? null,
    captured_at: isoTimestamp(new Date(set.capturedAt)),
    expires_at: isoTimestamp(new Date(expiresAt)),
    missing: missing.sort((a, b) => a.kind.localeCompare(b.kind)),
  };
}

/** The stored file at `token`/`fileName` while it has not expired, as a stream; null when unknown or expired. */
export async function readEvidence(bucket: R2Bucket, token: string, fileName: string, now = Date.now()): Promise<R2ObjectBody | null> {
  if (!isEvidenceName(token, fileName)) return null;
  const object = await bucket.get(objectKey(token, fileName));
  if (object === null) return null;
  if (isExpired(object, now)) {
    await object.body.cancel().catch(() => undefined);
    await bucket.delete(object.key).catch(() => undefined);
    return null;
  }
  return object;
}

function isExpired(object: R2Object, now: number): boolean {
  const expiresAt = Number(object.customMetadata?.expires_at);
  // written by storeEvidence, so always set; a value that is not a number is treated as expired, never as kept forever
  return !Number.isFinite(expiresAt) || now >= expiresAt;
}

/** Objects examined per sweep: a list page is 1,000 keys; the cron runs every 10 minutes. */
const SWEEP_PAGES = 5;

/** Deletes expired evidence (what nobody read after it expired); answers how many objects went. */
export async function sweepExpiredEvidence(bucket: R2Bucket, now = Date.now()): Promise<number> {
  let cursor: string | undefined;
  let deleted = 0;
  for (let page = 0; page < SWEEP_PAGES; page += 1) {
    const listed = await bucket.list({ cursor, limit: 1000, include: ["customMetadata"] });
    const expired = listed.objects.filter((object) => isExpired(object, now)).map((object) => object.key);
    if (expired.length > 0) await bucket.delete(expired);
    deleted += expired.length;
    if (!listed.truncated) break;
    cursor = listed.cursor;
  }
  return deleted;
}
