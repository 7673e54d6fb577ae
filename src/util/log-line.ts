/**
 * Who a log line is about, written first in brackets so one search finds every line of it: the id of the request a
 * customer can quote (`X-Request-Id`, docs/errors.md "Request ids"), with the job's id for a job's lines; for work no
 * request asked for (the canaries, the sweeps), what it is about. Built only by the functions below, so the bracket
 * always holds something safe to log: request ids are well-formed or generated (src/http/request-id.ts), job ids UUIDs.
 */
export interface LogSubject {
  readonly label: string;
}

/** The lines of one HTTP request: `[req_…] …`. */
export function requestSubject(requestId: string): LogSubject {
  return { label: requestId };
}

/**
 * The lines of one job: `[req_… job <id>] …`, the request that created it first. Jobs created before jobs carried
 * their request's id have none: `[job <id>] …`.
 */
export function jobSubject(requestId: string | null, jobId: string): LogSubject {
  return { label: requestId === null ? `job ${jobId}` : `${requestId} job ${jobId}` };
}

/** Work of the service's own (a canary, a sweep): `[canary grok US] …`. Callers pass fixed words and ids only. */
export function serviceSubject(what: string): LogSubject {
  return { label: what };
}

/** The line, prefixed with its subject; without one (a test or tool calling a module directly), the message alone. */
export function logLine(subject: LogSubject | undefined, message: string): string {
  return subject === undefined ? message : `[${subject.label}] ${message}`;
}
