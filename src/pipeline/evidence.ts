/**
 * Evidence of one scrape (docs/evidence.md), as the pipeline takes it: the page's screenshot and HTML while the lease
 * still holds the page, the stream from the exchanges the provider reported to its recorder (as a redacted capture
 * file, which replays to the answer), then the files into R2. Nothing here fails a scrape: every part that cannot be
 * taken or kept is listed in `missing` with why.
 */
import { capturePageHtml, capturePageScreenshot } from "../browser/page-evidence";
import type { PageSession } from "../browser/page/page-session";
import type { CaptureRecorder } from "../browser/page/capture/recording";
import { captureFileOf, captureMetadataOf } from "../capture-files/format";
import { redactCaptureFile } from "../capture-files/redact";
import type { EvidenceKind } from "../evidence/evidence-kinds";
import {
  EVIDENCE_FILE_NAMES,
  type EvidenceFile,
  type EvidenceSet,
  MAX_EVIDENCE_FILE_BYTES,
  type MissingEvidence,
} from "../evidence/evidence-store";
import type { ScrapeParams } from "../params/common-params";
import type { AnyProvider } from "../scrapers/registry";
import { logLine, type LogSubject } from "../util/log-line";
import type { ScrapeAnswer } from "./scrape-answer";

/** Time kept free before the scrape's deadline: evidence never turns an answer into a time-out. */
const DEADLINE_MARGIN_MS = 1_500;
/** The most page evidence may take, whatever the deadline (a screenshot of a long page takes ~0.5 s). */
const PAGE_EVIDENCE_BUDGET_MS = 15_000;

/** What the page gave, before the stream is added and anything is stored. */
export interface PageEvidence {
  files: EvidenceFile[];
  missing: MissingEvidence[];
  capturedAt: number;
}

class EvidenceTimeout extends Error {}

async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new EvidenceTimeout()), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

function reasonOf(error: unknown, kind: string): string {
  if (error instanceof EvidenceTimeout) return `the ${kind} could not be taken before the request's timeout`;
  return `the page could not be captured (${error instanceof Error ? error.message.slice(0, 160) : "unknown error"})`;
}

/**
 * The screenshot and HTML of `page`, for the page kinds among `kinds`, within the time left before `deadline`. The
 * HTML is taken first: the screenshot grows the viewport, which may lay the page out again.
 */
export async function takePageEvidence(
  { page, steps }: PageSession,
  kinds: readonly EvidenceKind[],
  deadline: number,
  logSubject: LogSubject,
): Promise<PageEvidence> {
  const capturedAt = Date.now();
  const files: EvidenceFile[] = [];
  const missing: MissingEvidence[] = [];
  const budget = () => Math.min(PAGE_EVIDENCE_BUDGET_MS, deadline - DEADLINE_MARGIN_MS - Date.now());
  if (kinds.includes("html")) {
    try {
      // timed as steps of the scrape (`npm run bench` prints what evidence adds)
      const html = await within(
        steps.time("evidence_html", () => capturePageHtml(page)),
        budget(),
      );
      files.push({
        kind: "html",
        fileName: EVIDENCE_FILE_NAMES.html,
        contentType: "text/html; charset=utf-8",
        body: new TextEncoder().encode(html),
      });
    } catch (error) {
      console.warn(logLine(logSubject, "no HTML evidence"), error);
      missing.push({ kind: "html", reason: reasonOf(error, "page's HTML") });
    }
  }
  if (kinds.includes("screenshot")) {
    try {
      const shot = await within(
        steps.time("evidence_screenshot", () => capturePageScreenshot(page, MAX_EVIDENCE_FILE_BYTES)),
        budget(),
      );
      if ("missing" in shot) missing.push({ kind: "screenshot", reason: shot.missing });
      else {
        files.push({
          kind: "screenshot",
          fileName: EVIDENCE_FILE_NAMES.screenshot[shot.contentType],
          contentType: shot.contentType,
          body: shot.bytes,
        });
      }
    } catch (error) {
      console.warn(logLine(logSubject, "no screenshot evidence"), error);
      missing.push({ kind: "screenshot", reason: reasonOf(error, "screenshot") });
    }
  }
  return { files, missing, capturedAt };
}

/** The exchanges the parser read, as a redacted capture file that replays to `answer` (`npm run capture`'s format). */
export function streamEvidence(
  provider: AnyProvider,
  params: ScrapeParams,
  origin: string,
  recorder: CaptureRecorder,
  answer: ScrapeAnswer,
): EvidenceFile | MissingEvidence {
  if (recorder.isEmpty) return { kind: "stream", reason: "the scraper recorded no exchange for this answer" };
  const file = redactCaptureFile(captureFileOf(captureMetadataOf(provider, params, origin), recorder, { answer }));
  return {
    kind: "stream",
    fileName: EVIDENCE_FILE_NAMES.stream,
    contentType: "application/json",
    body: new TextEncoder().encode(`${JSON.stringify(file, null, 1)}\n`),
  };
}

/** The page's evidence with the stream's, as one set to store. */
export function evidenceSetOf(page: PageEvidence, stream: EvidenceFile | MissingEvidence | null): EvidenceSet {
  const files = [...page.files];
  const missing = [...page.missing];
  if (stream !== null) {
    if ("body" in stream) files.push(stream);
    else missing.push(stream);
  }
  return { files, missing, capturedAt: page.capturedAt };
}
