/** Signed-out pages: how to sign in, the one-time link's confirmation, and messages (errors, signed out). */
import type { Child } from "hono/jsx";
import type { LoginLinkUse } from "../../accounts/sign-in";
import { Time } from "../format";
import { CenteredCard, Layout } from "../layout";

/**
 * Where a new sign-in link comes from. On a local deployment (reached on this machine's own address) that is a
 * command of the project; anywhere else, whoever gave the visitor access issues one.
 */
export function NewLinkAdvice({ local }: { local: boolean }) {
  if (!local) return <p data-testid="new-link-advice">Need a new link? Ask whoever gave you access for a new one.</p>;
  return (
    <p data-testid="new-link-advice">
      Need a new link? This is a local deployment: in the project folder, run <code>npm run sign-in-link</code> and open the link it prints
      (for the dev account; <code>npm run sign-in-link -- acct_…</code> for another account). <code>npm start</code> also prints one every
      time it starts.
    </p>
  );
}

export function SignInHelpPage({ notice, local }: { notice?: string; local: boolean }) {
  return (
    <Layout title="Sign in" frame={null}>
      <CenteredCard>
        <h1>Sign in to your dashboard</h1>
        {notice !== undefined && (
          <div class="notice info" role="status">
            {notice}
          </div>
        )}
        <p>Open the one-time sign-in link you received. Each link works once and expires; there is no password to remember or leak.</p>
        <NewLinkAdvice local={local} />
        <p class="hint">
          Looking for the API reference? It is at <a href="/docs">/docs</a>.
        </p>
      </CenteredCard>
    </Layout>
  );
}

/**
 * The page a sign-in link opens: /dashboard/login#<token>. The token is the URL's fragment, which browsers never send
 * to a server, so it appears in no request log; the dashboard script copies it into this form and drops it from the
 * address bar and history. Opening the link uses nothing up: only the button's POST does, because mail scanners and
 * link previews fetch links with GET and must not burn a customer's one-time link.
 */
export function ConfirmSignInPage({ csrf }: { csrf: string }) {
  return (
    <Layout title="Sign in" frame={null}>
      <CenteredCard>
        <h1>Welcome back</h1>
        <p>Continue to your dashboard.</p>
        <form method="post" action="/dashboard/login">
          <input type="hidden" name="_csrf" value={csrf} />
          <input type="hidden" name="token" id="login-token" value="" />
          <button class="btn btn-primary" type="submit">
            Sign in
          </button>
        </form>
        <noscript>
          <p class="hint">Signing in needs JavaScript: your link's one-time code stays in this browser and is sent only with this form.</p>
        </noscript>
        <p class="hint">Each link works once, expires soon after it is sent, and stops working once a newer link has been used.</p>
      </CenteredCard>
    </Layout>
  );
}

export function MessagePage({ title, children, action }: { title: string; children: Child; action?: { href: string; label: string } }) {
  return (
    <Layout title={title} frame={null}>
      <CenteredCard>
        <h1>{title}</h1>
        <p>{children}</p>
        {action !== undefined && (
          <a class="btn btn-primary" href={action.href}>
            {action.label}
          </a>
        )}
      </CenteredCard>
    </Layout>
  );
}

/** Why a sign-in link did not sign the visitor in (src/accounts/sign-in.ts tells them apart). */
type UnusableLink = Exclude<LoginLinkUse, { outcome: "signed_in" }>;

/** A sign-in link that cannot be used: what happened, and where a new one comes from. */
export function UnusableLinkPage({ link, local }: { link: UnusableLink; local: boolean }) {
  const title =
    link.outcome === "used"
      ? "This sign-in link was already used"
      : link.outcome === "expired"
        ? "This sign-in link has expired"
        : "This sign-in link cannot be used";
  return (
    <Layout title={title} frame={null}>
      <CenteredCard>
        <h1>{title}</h1>
        <p data-testid="link-problem">
          {link.outcome === "used" ? (
            <>
              It signed in on <Time iso={link.usedAt} />, and each link works only once. If that was you in another browser or tab, you are
              signed in there.
            </>
          ) : link.outcome === "expired" ? (
            <>
              It stopped working on <Time iso={link.expiredAt} />: sign-in links work for a limited time after they are issued.
            </>
          ) : (
            <>
              It is incomplete (copy the whole link, including the part after <code>#</code>), or it was replaced by a newer link that has
              since been used, or it was ended when the account was signed out everywhere.
            </>
          )}
        </p>
        <NewLinkAdvice local={local} />
        <a class="btn btn-primary" href="/dashboard/sign-in">
          How to sign in
        </a>
      </CenteredCard>
    </Layout>
  );
}
