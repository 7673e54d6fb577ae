/** Signed-out pages: how to sign in, the one-time link's confirmation, and messages (errors, signed out). */
import type { Child } from "hono/jsx";
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
