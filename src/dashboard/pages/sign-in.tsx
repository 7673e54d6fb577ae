/** Signed-out pages: how to sign in, the one-time link's confirmation, and messages (errors, signed out). */
import type { Child } from "hono/jsx";
import { Time } from "../format";
import { CenteredCard, Layout } from "../layout";

export function SignInHelpPage({ notice }: { notice?: string }) {
  return (
    <Layout title="Sign in" frame={null}>
      <CenteredCard>
        <h1>Sign in to your dashboard</h1>
        {notice !== undefined && (
          <div class="notice info" role="status">
            {notice}
          </div>
        )}
        <p>
          Open the one-time sign-in link you received from us. Each link works once and expires; there is no password to remember or leak.
        </p>
        <p>Need a new link? Ask your account manager or our support team for one.</p>
        <p class="hint">
          Looking for the API reference? It is at <a href="/docs">/docs</a>.
        </p>
      </CenteredCard>
    </Layout>
  );
}

/**
 * Opening the link only shows this page; the POST from its button uses the link up. Mail scanners and link previews
 * fetch links with GET, and must not burn a customer's one-time link.
 */
export function ConfirmSignInPage({
  token,
  csrf,
  accountName,
  expiresAt,
}: {
  token: string;
  csrf: string;
  accountName: string;
  expiresAt: string;
}) {
  return (
    <Layout title="Sign in" frame={null}>
      <CenteredCard>
        <h1>Welcome back</h1>
        <p>
          Continue to the dashboard of <strong>{accountName}</strong>.
        </p>
        <form method="post" action="/dashboard/login">
          <input type="hidden" name="_csrf" value={csrf} />
          <input type="hidden" name="token" value={token} />
          <button class="btn btn-primary" type="submit">
            Sign in
          </button>
        </form>
        <p class="hint">
          This link works once and expires <Time iso={expiresAt} />.
        </p>
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
