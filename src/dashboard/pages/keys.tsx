/** `/dashboard/keys`: the key list, the create form, the once-only display of a new key, and the revoke confirmation. */
import type { ApiKeySummary, CreatedApiKey } from "../../accounts/keys";
import { MAX_ACTIVE_KEYS } from "../../accounts/keys";
import { API_KEY_SCOPES, type ApiKeyScope, DEFAULT_API_KEY_SCOPE } from "../../auth/api-keys";
import { Ago, Time } from "../format";
import { Layout, PageHead, type SignedInFrame } from "../layout";

export interface KeysPageData {
  keys: ApiKeySummary[];
  /** Set only on the page the create form redirects to (from its one-time flash): the one time the full key is shown. */
  created?: CreatedApiKey;
  /** Set after a revocation, to confirm it. */
  revoked?: ApiKeySummary;
  /** A problem with the create form, shown next to it. */
  formError?: string;
  formName?: string;
  formScope?: ApiKeyScope;
}

/** What each scope allows, in the words of the form and the list (src/http/require-scope.ts is the rule). */
const SCOPE_LABELS: Record<ApiKeyScope, string> = {
  scrape: "scrape: scrapes, jobs, batches, account balance, MCP",
  manage: "manage: all of scrape, plus webhook settings and signing secret",
};

function ScopeBadge({ scope }: { scope: ApiKeyScope }) {
  return <span class={scope === "manage" ? "badge warn" : "badge muted"}>{scope}</span>;
}

function NewKeyNotice({ created }: { created: CreatedApiKey }) {
  return (
    <section class="notice success" aria-labelledby="new-key-title" data-testid="new-key">
      <h2 id="new-key-title">
        Your new key “{created.name}” <ScopeBadge scope={created.scope} />
      </h2>
      <p>Copy it now and store it somewhere safe. For your security it will not be shown again.</p>
      <div class="secret">
        <input
          id="new-api-key"
          type="text"
          readonly
          value={created.apiKey}
          aria-label="New API key"
          spellcheck={false}
          autocomplete="off"
        />
        <button class="btn btn-primary" type="button" data-copy-target="new-api-key">
          Copy
        </button>
      </div>
      <p class="hint">Use it in the X-API-Key header. Keep it out of client-side code and public repositories.</p>
    </section>
  );
}

function KeyRow({ apiKey }: { apiKey: ApiKeySummary }) {
  const revoked = apiKey.revokedAt !== null;
  return (
    <tr class={revoked ? "revoked" : undefined} data-key-id={apiKey.keyId}>
      <td data-label="Name">
        <strong>{apiKey.name}</strong>
      </td>
      <td data-label="Key">
        <code>{apiKey.displayPrefix}…</code>
      </td>
      <td data-label="Scope">
        <ScopeBadge scope={apiKey.scope} />
      </td>
      <td data-label="Created">
        <Time iso={apiKey.createdAt} />
      </td>
      <td data-label="Last used">
        <Ago iso={apiKey.lastUsedAt} />
      </td>
      <td data-label="Status">
        {revoked ? (
          <span>
            <span class="badge muted">Revoked</span>{" "}
            <span class="hint">
              <Ago iso={apiKey.revokedAt} />
            </span>
          </span>
        ) : (
          <span class="badge ok">Active</span>
        )}
      </td>
      <td class="actions">
        {!revoked && (
          <a class="link-danger" href={`/dashboard/keys/${encodeURIComponent(apiKey.keyId)}/revoke`} aria-label={`Revoke ${apiKey.name}`}>
            Revoke
          </a>
        )}
      </td>
    </tr>
  );
}

export function KeysPage({ frame, data }: { frame: SignedInFrame; data: KeysPageData }) {
  const active = data.keys.filter((key) => key.revokedAt === null).length;
  return (
    <Layout title="API keys" frame={frame}>
      <main>
        <PageHead
          title="API keys"
          subtitle={`Every key draws on your account's one balance. ${active} of ${MAX_ACTIVE_KEYS} active keys in use.`}
        />
        {data.created !== undefined && <NewKeyNotice created={data.created} />}
        {data.revoked !== undefined && (
          <div class="notice info" role="status">
            Key “{data.revoked.name}” (<code>{data.revoked.displayPrefix}…</code>) was revoked. Requests made with it are now refused.
          </div>
        )}
        <section class="card" aria-labelledby="create-title">
          <div class="card-head">
            <h2 id="create-title">Create a key</h2>
            <p>Use one key per application or environment, so you can revoke one without touching the others.</p>
          </div>
          <form method="post" action="/dashboard/keys">
            <input type="hidden" name="_csrf" value={frame.csrf} />
            <div class="form-row">
              <div class="field">
                <label for="key-name">Name</label>
                <input
                  id="key-name"
                  name="name"
                  type="text"
                  required
                  maxlength={100}
                  placeholder="e.g. Production server"
                  value={data.formName ?? ""}
                  aria-invalid={data.formError !== undefined ? "true" : undefined}
                  aria-describedby={data.formError !== undefined ? "key-name-error" : undefined}
                />
              </div>
              <div class="field">
                <label for="key-scope">Scope</label>
                <select id="key-scope" name="scope" aria-describedby="key-scope-hint">
                  {API_KEY_SCOPES.map((scope) => (
                    <option value={scope} selected={scope === (data.formScope ?? DEFAULT_API_KEY_SCOPE)}>
                      {SCOPE_LABELS[scope]}
                    </option>
                  ))}
                </select>
              </div>
              <button class="btn btn-primary" type="submit">
                Create key
              </button>
            </div>
            {data.formError !== undefined && (
              <p id="key-name-error" class="hint" role="alert">
                <span class="link-danger">{data.formError}</span>
              </p>
            )}
            <p id="key-scope-hint" class="hint">
              Give your scraping programs a <code>scrape</code> key. Only a <code>manage</code> key can read the webhook signing secret or
              point the account's webhook elsewhere, so keep those for the few programs that administer webhooks.
            </p>
          </form>
        </section>
        <section class="card" aria-labelledby="keys-title">
          <div class="card-head">
            <h2 id="keys-title">Your keys</h2>
            <p>Only the first characters of a key are kept for display.</p>
          </div>
          {data.keys.length === 0 ? (
            <div class="empty">
              <strong>No keys yet</strong>
              Create one above to start using the API.
            </div>
          ) : (
            <div class="table-wrap">
              <table class="responsive" data-testid="keys-table">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Key</th>
                    <th>Scope</th>
                    <th>Created</th>
                    <th>Last used</th>
                    <th>Status</th>
                    <th class="actions">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.keys.map((apiKey) => (
                    <KeyRow apiKey={apiKey} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      </main>
    </Layout>
  );
}

export function RevokeKeyPage({ frame, apiKey }: { frame: SignedInFrame; apiKey: ApiKeySummary }) {
  return (
    <Layout title="Revoke key" frame={frame}>
      <main>
        <div class="card confirm-card" role="alertdialog" aria-labelledby="revoke-title" aria-describedby="revoke-text">
          <h1 id="revoke-title">Revoke “{apiKey.name}”?</h1>
          <p id="revoke-text">
            Every request made with <code>{apiKey.displayPrefix}…</code> will be refused with HTTP 401 from the next one on. Jobs already
            submitted with it still finish. This cannot be undone; create a new key if you need one.
          </p>
          <p class="hint">
            Created <Time iso={apiKey.createdAt} /> · last used <Ago iso={apiKey.lastUsedAt} />
          </p>
          <form method="post" action={`/dashboard/keys/${encodeURIComponent(apiKey.keyId)}/revoke`}>
            <input type="hidden" name="_csrf" value={frame.csrf} />
            <div class="confirm-actions">
              <a class="btn btn-secondary" href="/dashboard/keys">
                Cancel
              </a>
              <button class="btn btn-danger" type="submit">
                Revoke key
              </button>
            </div>
          </form>
        </div>
      </main>
    </Layout>
  );
}
