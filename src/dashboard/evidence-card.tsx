/**
 * The overview's "Evidence" card: the account's evidence default (src/evidence/account-evidence.ts), the kinds every
 * request keeps unless it says otherwise with `X-Evidence`, and whether failed scrapes keep their page. The form posts
 * to `/dashboard/evidence` with the session's CSRF token, like every dashboard form.
 */
import { EVIDENCE_HEADER, EVIDENCE_KINDS, type EvidenceRequest, NO_EVIDENCE } from "../evidence/evidence-kinds";
import { EVIDENCE_TTL_MS } from "../evidence/evidence-store";
import { CHECKED_VALUE, evidenceKindField, FAILURE_EVIDENCE_FIELD } from "./evidence-form";
import { EVIDENCE_KIND_LABELS } from "./evidence-labels";

/** What each checkbox keeps, under its label. */
const KIND_HINTS = {
  screenshot: "the answer page as the provider rendered it (PNG)",
  html: "the page's HTML when the answer completed",
  stream: "the exchanges the answer was read from (JSON, credentials removed)",
} as const;

export interface EvidenceCardState {
  setting: EvidenceRequest;
  /** Shown once after a save. */
  saved?: boolean;
  /** A refused post's reason (nothing was saved). */
  error?: string;
}

export function EvidenceCard({ state, csrf }: { state: EvidenceCardState; csrf: string }) {
  const { setting } = state;
  const hours = EVIDENCE_TTL_MS / 3_600_000;
  return (
    <section class="card" id="evidence" aria-labelledby="evidence-title">
      <div class="card-head">
        <h2 id="evidence-title">Evidence</h2>
        <p>No extra credits</p>
      </div>
      {state.saved === true && (
        <p class="notice info" role="status" data-testid="evidence-saved">
          Saved. Requests from now on keep this evidence (within a few seconds).
        </p>
      )}
      {state.error !== undefined && (
        <p class="notice danger" role="alert" data-testid="evidence-error">
          Nothing was saved: {state.error}
        </p>
      )}
      <p class="hint">
        What every answer of this account keeps besides its text, for {hours} hours at unguessable links (the response's{" "}
        <code>evidence</code>). A request's <code>{EVIDENCE_HEADER}</code> header overrides this default (
        <code>
          {EVIDENCE_HEADER}: {NO_EVIDENCE}
        </code>{" "}
        turns it off). A request that keeps evidence is always scraped afresh, never answered from the cache.
      </p>
      <form method="post" action="/dashboard/evidence">
        <input type="hidden" name="_csrf" value={csrf} />
        <fieldset class="evidence-kinds">
          <legend>Keep for every answer</legend>
          {EVIDENCE_KINDS.map((kind) => (
            <label class="check">
              <input type="checkbox" name={evidenceKindField(kind)} value={CHECKED_VALUE} checked={setting.kinds.includes(kind)} />
              <span>
                {EVIDENCE_KIND_LABELS[kind]} <span class="hint">({KIND_HINTS[kind]})</span>
              </span>
            </label>
          ))}
        </fieldset>
        <label class="check">
          <input type="checkbox" name={FAILURE_EVIDENCE_FIELD} value={CHECKED_VALUE} checked={setting.onFailure} />
          <span>Keep failure evidence (screenshot and HTML of failed scrapes)</span>
        </label>
        <p class="hint">
          Not for a failure caused by the request or a time-out. It is the <code>evidence</code> of the error response and of the failed job
          (shown on its result page); a request cannot turn it on or off.
        </p>
        <button class="btn btn-primary btn-small" type="submit">
          Save evidence settings
        </button>
      </form>
    </section>
  );
}
