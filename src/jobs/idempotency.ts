/**
 * `Idempotency-Key` for job and batch submission. A key belongs to the account (any of its API keys) for 24 hours and
 * remembers a fingerprint of the request (the endpoint, the scraper and every validated parameter) and the id of what
 * it created. The same key with the same request answers that job or batch again and charges nothing; with another
 * request it is a 409.
 *
 * Concurrent duplicates: the first request claims the key (one D1 statement, so exactly one wins) and does the work;
 * the others wait for it and then answer the same id. If it fails, it releases the key and a waiting duplicate claims
 * it. If it dies without either (a Worker killed mid-request), its lock runs out and a retry takes the key over with
 * the same resource id: every submission step is idempotent for a given id, so finishing someone else's half-done
 * submission never creates or charges anything twice.
 *
 * Except when that submission had already failed and been refunded (it died, or could not release its key, between
 * the refund and the release): its charge is spent (the ledger charges an id once), so finishing it would create a job
 * nobody paid for. Such a takeover gets a new resource id instead, and runs as the new request it is for the client:
 * charged again, with a new job or batch id, exactly as when the failed request had released its key. The refunded one
 * stays failed; the client, which never received its id, pays once for the one it gets.
 */
import { ConflictError, InvalidParameterError } from "../errors";
import { randomToken, sha256Hex } from "../util/crypto";
import { logLine, type LogSubject } from "../util/log-line";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_DETAIL = "Idempotency-Key: must be 1 to 255 printable ASCII characters";
export const IDEMPOTENCY_MISMATCH_DETAIL =
  "Idempotency-Key: this key was already used with different parameters in the last 24 hours. Use a new key for a different request.";
export const IDEMPOTENCY_IN_PROGRESS_DETAIL =
  "Idempotency-Key: a request with this key is still being processed. Retry in a few seconds to get its result.";

type IdempotentKind = "job" | "batch";

const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

/** The header's value, or undefined when absent; a present but unusable value is a 400. */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = header.trim();
  if (!PRINTABLE_ASCII.test(key)) throw new InvalidParameterError(IDEMPOTENCY_KEY_DETAIL);
  return key;
}

/** JSON with object keys sorted at every level, so equal requests have equal fingerprints whatever their order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function requestFingerprint(kind: IdempotentKind, request: unknown): Promise<string> {
  return sha256Hex(canonicalJson({ kind, request }));
}

interface IdempotentRequest {
  accountId: string;
  key: string;
  kind: IdempotentKind;
  fingerprint: string;
  /** The id the work will create if this request is the one that does it. */
  newResourceId: string;
  /** How long the claim holds before a retry may take it over (longer than the work can take). */
  lockMs: number;
  /** The request that carries the key: the lines about its claim start with it. */
  logSubject: LogSubject;
}

interface IdempotentWork<T> {
  /** Does the work for `resourceId` (the new id, or a dead claim's id being finished): every step idempotent. */
  run(resourceId: string): Promise<T>;
  /** Answers again for the resource a completed earlier request created. */
  replay(resourceId: string): Promise<T>;
}

interface KeyRow {
  kind: string;
  fingerprint: string;
  resource_id: string;
  state: "in_flight" | "done";
  claim_token: string;
}

/**
 * SQL, on an `idempotency_keys` row, true when its resource's charge was refunded before the resource was handed out:
 * a job's charge (the job id is the ledger's operation id), or any job of a batch still `submitting` (an accepted
 * batch's jobs run and are refunded one by one as they fail, and that batch is the answer to replay).
 */
const REFUNDED_BEFORE_RELEASE = `(
  EXISTS (SELECT 1 FROM credit_ledger WHERE operation_id = idempotency_keys.resource_id AND kind = 'refund')
  OR EXISTS (
    SELECT 1 FROM batches b, json_each(b.job_ids) j
    JOIN credit_ledger c ON c.operation_id = j.value AND c.kind = 'refund'
    WHERE b.batch_id = idempotency_keys.resource_id AND b.state = 'submitting'
  )
)`;

type Claim =
  | { outcome: "owner"; resourceId: string; token: string }
  | { outcome: "replay"; resourceId: string }
  | { outcome: "conflict" }
  | { outcome: "busy" };

async function claim(db: D1Database, request: IdempotentRequest, now: number): Promise<Claim> {
  const token = randomToken(16);
  const lockedUntil = now + request.lockMs;
  const [, , select] = await db.batch<KeyRow>([
    // A new key, or one whose 24 hours are over, is claimed outright.
    db
      .prepare(
        `INSERT INTO idempotency_keys (account_id, idempotency_key, kind, fingerprint, resource_id, state, claim_token, locked_until, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 'in_flight', ?6, ?7, ?8)
         ON CONFLICT (account_id, idempotency_key) DO UPDATE SET
           kind = excluded.kind, fingerprint = excluded.fingerprint, resource_id = excluded.resource_id, state = 'in_flight',
           claim_token = excluded.claim_token, locked_until = excluded.locked_until, expires_at = excluded.expires_at
         WHERE idempotency_keys.expires_at <= ?9`,
      )
      .bind(
        request.accountId,
        request.key,
        request.kind,
        request.fingerprint,
        request.newResourceId,
        token,
        lockedUntil,
        now + IDEMPOTENCY_TTL_MS,
        now,
      ),
    // The same request whose holder's lock ran out (it died mid-way) is taken over, keeping its resource id unless
    // that resource was refunded before the key was released: then the takeover is a new request with a new id.
    db
      .prepare(
        `UPDATE idempotency_keys SET claim_token = ?5, locked_until = ?6,
           resource_id = CASE WHEN ${REFUNDED_BEFORE_RELEASE} THEN ?8 ELSE resource_id END
         WHERE account_id = ?1 AND idempotency_key = ?2 AND kind = ?3 AND fingerprint = ?4 AND state = 'in_flight' AND locked_until <= ?7`,
      )
      .bind(request.accountId, request.key, request.kind, request.fingerprint, token, lockedUntil, now, request.newResourceId),
    db
      .prepare(
        "SELECT kind, fingerprint, resource_id, state, claim_token FROM idempotency_keys WHERE account_id = ? AND idempotency_key = ?",
      )
      .bind(request.accountId, request.key),
  ]);
  const row = select?.results[0];
  if (row === undefined) return { outcome: "busy" };
  if (row.kind !== request.kind || row.fingerprint !== request.fingerprint) return { outcome: "conflict" };
  if (row.claim_token === token) return { outcome: "owner", resourceId: row.resource_id, token };
  if (row.state === "done") return { outcome: "replay", resourceId: row.resource_id };
  return { outcome: "busy" };
}

async function settle(db: D1Database, request: IdempotentRequest, token: string, succeeded: boolean): Promise<void> {
  const statement = succeeded
    ? "UPDATE idempotency_keys SET state = 'done' WHERE account_id = ? AND idempotency_key = ? AND claim_token = ?"
    : "DELETE FROM idempotency_keys WHERE account_id = ? AND idempotency_key = ? AND claim_token = ? AND state = 'in_flight'";
  try {
    await db.prepare(statement).bind(request.accountId, request.key, token).run();
  } catch (error) {
    // Not fatal either way: an unsettled claim is taken over by a retry once its lock runs out.
    console.error(logLine(request.logSubject, "idempotency: could not settle a claim"), error);
  }
}

/** Old keys are deleted in passing, a few at a time, so the table stays the size of one day's keys. */
async function pruneExpired(db: D1Database, now: number, logSubject: LogSubject): Promise<void> {
  await db
    .prepare(
      "DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE expires_at <= ? ORDER BY expires_at LIMIT 50)",
    )
    .bind(now)
    .run()
    .catch((error: unknown) => console.error(logLine(logSubject, "idempotency: pruning failed"), error));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` under the key: once per key and request, whatever the concurrency. A duplicate waits while the first is
 * in progress (polling with back-off, up to the claim's lock) and then answers what it created.
 */
export async function withIdempotencyKey<T>(db: D1Database, request: IdempotentRequest, work: IdempotentWork<T>): Promise<T> {
  const deadline = Date.now() + request.lockMs + 1_000;
  await pruneExpired(db, Date.now(), request.logSubject);
  for (let pause = 20; ; pause = Math.min(pause * 2, 500)) {
    const claimed = await claim(db, request, Date.now());
    if (claimed.outcome === "conflict") throw new ConflictError(IDEMPOTENCY_MISMATCH_DETAIL, { code: "idempotency_key_reused" });
    if (claimed.outcome === "replay") return work.replay(claimed.resourceId);
    if (claimed.outcome === "owner") {
      let result: T;
      try {
        result = await work.run(claimed.resourceId);
      } catch (error) {
        // Nothing usable was created: the key is free for the client's retry.
        await settle(db, request, claimed.token, false);
        throw error;
      }
      await settle(db, request, claimed.token, true);
      return result;
    }
    if (Date.now() + pause > deadline)
      throw new ConflictError(IDEMPOTENCY_IN_PROGRESS_DETAIL, { code: "idempotency_in_progress", retryAfterSeconds: 2 });
    await sleep(pause);
  }
}
