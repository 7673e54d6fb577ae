/**
 * Records a capture: one scrape through the real pipeline (the configured origin: a replica locally, the real site in
 * live mode; with a provider account when the provider has one) with a recorder in the provider's context, then the
 * capture file: redacted, and checked by replaying it, so a file that leaves here replays to its own answer.
 *
 * A scrape whose parser failed still yields a file (`answer: null`, `failure`): when a site changed, that file is the
 * test of the fix. A scrape that failed before any exchange was recorded (a block, a page that no longer loads, the
 * pool) has nothing to replay and fails the capture with its own error.
 */
import { CaptureRecorder } from "../browser/page/capture/recording";
import { ScraperDriftError, ServiceError, toServiceError } from "../errors";
import type { ScrapeParams } from "../params/common-params";
import { runScrape } from "../pipeline/pipeline";
import { type AnyProvider, resolveOrigin } from "../scrapers/registry";
import { logLine, serviceSubject } from "../util/log-line";
import { captureFileOf, captureMetadataOf, type CaptureFile } from "./format";
import { redactCaptureFile } from "./redact";
import { replayCapture } from "./replay";

/** 500: the redacted file does not replay to the answer the scrape gave (a redaction hit something the parser reads). */
class CaptureReplayMismatchError extends ServiceError {
  constructor(paths: readonly string[]) {
    super(
      500,
      `The capture was recorded but its redacted exchanges do not replay to the scraped answer (fields: ${paths.join(", ") || "none"}). See the Worker log.`,
      { code: "capture_mismatch" },
    );
  }
}

interface CaptureRequest {
  provider: AnyProvider;
  /** Validated parameters of that provider. */
  params: ScrapeParams;
  /** Public origin of this API (the scrape's hosted markdown link). */
  baseUrl: string;
}

export async function recordCapture(env: Env, request: CaptureRequest): Promise<CaptureFile> {
  const { provider, params } = request;
  const recorder = new CaptureRecorder();
  const metadata = captureMetadataOf(provider, params, resolveOrigin(env, provider, params));
  let outcome: { answer: Record<string, unknown> } | { failure: { status: number; detail: string; code: string | null } };
  try {
    const response = await runScrape(
      env,
      {
        scraper: provider.id,
        params: { ...params, bypass_cache: true },
        jobId: crypto.randomUUID(),
        baseUrl: request.baseUrl,
        logSubject: serviceSubject(`capture ${provider.id}`),
        startedAt: Date.now(),
        recorder,
      },
      params.timeout,
    );
    // the provider's answer: its declared fields, without the common ones of the response (job id, timings…)
    outcome = {
      answer: Object.fromEntries(Object.keys(provider.answer.shape).flatMap((key) => (key in response ? [[key, response[key]]] : []))),
    };
  } catch (error) {
    if (recorder.exchanges.size === 0) throw error;
    const failure = toServiceError(error);
    outcome = {
      failure: { status: failure.status, detail: failure.detail, code: failure instanceof ScraperDriftError ? failure.driftCode : null },
    };
  }
  const file = redactCaptureFile(captureFileOf(metadata, recorder, outcome));
  if (file.answer !== null) {
    const replayed = replayCapture(provider, file);
    const problems = replayed.kind === "failed" ? [replayed.problem] : replayed.differences;
    if (problems.length > 0) {
      console.error(logLine(serviceSubject(`capture ${provider.id}`), "the capture does not replay after redaction"), {
        redactions: file.redactions,
        problems,
      });
      throw new CaptureReplayMismatchError(problems.map((line) => line.split(":")[0] ?? ""));
    }
  }
  return file;
}
