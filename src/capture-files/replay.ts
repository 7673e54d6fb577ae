/**
 * Replay: a capture file's recorded inputs through the provider's pure parser (its `replay` declaration), compared with
 * the answer the file recorded. Pure (no browser, no bindings), so the unit tests, `npm run capture -- --accept` and
 * the capture endpoint's own check all run the same code.
 */
import { z } from "@hono/zod-openapi";
import type { RecordedInputs } from "../browser/page/capture/recording";
import { ServiceError } from "../errors";
import { type CommonParams, commonParamShape, type ProviderParamShape } from "../params/common-params";
import type { ProviderCountries } from "../params/countries";
import { answerDifferences } from "./compare";
import { type CaptureFile, recordedInputsOf } from "./format";

/** What replay needs of a provider (every provider declaration satisfies it). */
interface ReplayableProvider {
  readonly id: string;
  readonly params: ProviderParamShape;
  readonly countries?: ProviderCountries;
  readonly answer: z.ZodObject<z.ZodRawShape>;
  replay?(inputs: RecordedInputs, params: CommonParams): unknown;
}

type ReplayOutcome =
  /** The parser's answer now; `differences` is empty when it equals the recorded one. */
  | { kind: "answered"; answer: Record<string, unknown>; differences: string[] }
  /** The parser (or the file) failed; `problem` says how, for an operator. */
  | { kind: "failed"; problem: string };

/** Runs the file's inputs through the provider's parser and compares the answer with the recorded one. */
export function replayCapture(provider: ReplayableProvider, file: CaptureFile): ReplayOutcome {
  if (file.scraper !== provider.id) return { kind: "failed", problem: `the capture is of ${file.scraper}, not ${provider.id}` };
  if (provider.replay === undefined) return { kind: "failed", problem: `the ${provider.id} provider declares no replay entry point` };
  const query = z.strictObject({ ...commonParamShape(provider.id, provider.countries), ...provider.params }).safeParse(file.query);
  if (!query.success) {
    const issue = query.error.issues[0];
    return { kind: "failed", problem: `the recorded query is no longer valid: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? ""}` };
  }
  let raw: unknown;
  try {
    raw = provider.replay(recordedInputsOf(file), query.data);
  } catch (error) {
    return { kind: "failed", problem: `the parser failed: ${describeError(error)}` };
  }
  const checked = provider.answer.strict().safeParse(raw);
  if (!checked.success) {
    const issues = checked.error.issues.slice(0, 5).map((issue) => `${issue.path.join(".") || "(answer)"}: ${issue.message}`);
    return { kind: "failed", problem: `the parser's answer does not match the ${provider.id} answer schema: ${issues.join("; ")}` };
  }
  const answer: Record<string, unknown> = { ...checked.data };
  return { kind: "answered", answer, differences: file.answer === null ? [] : answerDifferences(file.answer, answer) };
}

/** The error with its class, status and cause: for the operator's eyes (a test report, the capture script), not a client. */
function describeError(error: unknown): string {
  if (error instanceof ServiceError) {
    const cause = error.cause instanceof Error ? `; cause: ${error.cause.message}` : "";
    return `${error.name} ${error.status} "${error.detail}"${cause}`;
  }
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
