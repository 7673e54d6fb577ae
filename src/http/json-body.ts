/**
 * JSON request bodies, in our own words: the strict body schema that names the accepted fields when it meets an unknown
 * one, the `detail` of a body that fails validation, and the translation of the transport failures Hono raises before
 * validation (no or wrong Content-Type, malformed JSON) into the service's errors.
 */
import { z } from "@hono/zod-openapi";
import type { HTTPException } from "hono/http-exception";
import { InvalidParameterError, ServiceError, UnsupportedMediaTypeError } from "../errors";
import type { ValidationIssues } from "../params/common-params";

export const JSON_CONTENT_TYPE_DETAIL = "Send the body as JSON with Content-Type: application/json.";
export const MALFORMED_JSON_DETAIL = "Request body: not valid JSON. Send a JSON object with Content-Type: application/json.";

const UNKNOWN_FIELD_PREFIX = "Unknown field";

/** The media types Hono's validator reads as JSON (`application/json`, `application/problem+json`…), parameters allowed. */
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/** For a route that reads its JSON body itself: the same 415 as the validated routes when the body is not marked JSON. */
export function requireJsonContentType(contentType: string | undefined): void {
  if (contentType === undefined || !JSON_MEDIA_TYPE.test(contentType)) throw new UnsupportedMediaTypeError(JSON_CONTENT_TYPE_DETAIL);
}

/** "Unknown field `plan`. Accepted fields: name, email, credits." (the list only when the schema knows it). */
function unknownFieldsDetail(keys: readonly string[], accepted?: readonly string[]): string {
  const noun = keys.length === 1 ? UNKNOWN_FIELD_PREFIX : `${UNKNOWN_FIELD_PREFIX}s`;
  const named = `${noun} ${keys.map((key) => `\`${key}\``).join(", ")}.`;
  return accepted === undefined ? named : `${named} Accepted fields: ${accepted.join(", ")}.`;
}

/**
 * A JSON body object that refuses unknown fields and names the accepted ones in its message, so a typo such as `plan`
 * reads as a hint rather than as validator wording.
 */
export function strictBody<Shape extends z.ZodRawShape>(shape: Shape) {
  const accepted = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => (issue.code === "unrecognized_keys" ? unknownFieldsDetail(issue.keys, accepted) : undefined),
  });
}

/** The `detail` of a JSON body that failed its schema: the first issue, prefixed with the field it concerns. */
export function describeBodyValidationError(error: ValidationIssues): string {
  const issue = error.issues[0];
  if (issue === undefined) return "Request body: invalid.";
  const field = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    // A schema built without strictBody carries zod's own wording, which is not ours to show.
    const message = issue.message.startsWith(UNKNOWN_FIELD_PREFIX) ? issue.message : unknownFieldsDetail(issue.keys);
    return field === "" ? message : `${field}: ${message}`;
  }
  if (field === "") return issue.code === "invalid_type" ? "Request body: must be a JSON object." : `Request body: ${issue.message}`;
  return `${field}: ${issue.message}`;
}

/**
 * Hono's own HTTP failures (raised before any route code runs) as service errors with a clear detail and code. Hono's
 * validator reads a body only when the request says it is JSON, and its one 400 then is a body `JSON.parse` refused;
 * that is known from the request's Content-Type, never from the exception's wording.
 */
export function serviceErrorOfHttpException(error: HTTPException, contentType: string | undefined): ServiceError {
  if (error.status === 415) return new UnsupportedMediaTypeError(JSON_CONTENT_TYPE_DETAIL);
  if (error.status === 400 && contentType !== undefined && JSON_MEDIA_TYPE.test(contentType))
    return new InvalidParameterError(MALFORMED_JSON_DETAIL, "malformed_json");
  if (error.status === 400) return new InvalidParameterError("Malformed request.");
  return new ServiceError(error.status, "Request failed.");
}
