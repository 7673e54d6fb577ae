/** The page frame: head, top bar with navigation and sign-out, and the content area. */
import type { Child } from "hono/jsx";
import { BrandMark } from "../http/brand-mark";
import { ASSET_VERSION } from "./assets";

const PRODUCT_NAME = "AI Answer Scraper";

export type NavItem = "overview" | "playground" | "keys" | "requests" | "jobs" | "webhooks";

export interface SignedInFrame {
  accountName: string;
  csrf: string;
  active: NavItem | null;
}

const NAV: Array<{ id: NavItem; href: string; label: string }> = [
  { id: "overview", href: "/dashboard", label: "Overview" },
  { id: "playground", href: "/dashboard/playground", label: "Playground" },
  { id: "keys", href: "/dashboard/keys", label: "API keys" },
  { id: "requests", href: "/dashboard/requests", label: "Requests" },
  { id: "jobs", href: "/dashboard/jobs", label: "Jobs" },
  { id: "webhooks", href: "/dashboard/webhooks", label: "Webhooks" },
];

export function Layout({ title, frame, children }: { title: string; frame: SignedInFrame | null; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <link rel="icon" href="data:," />
        <title>{`${title} · ${PRODUCT_NAME}`}</title>
        <link rel="stylesheet" href={`/dashboard/assets/dashboard.css?v=${ASSET_VERSION}`} />
        <script src={`/dashboard/assets/dashboard.js?v=${ASSET_VERSION}`} defer></script>
      </head>
      <body>
        <header class="topbar">
          <div class="topbar-inner">
            <a class="brand" href="/dashboard">
              <BrandMark />
              {PRODUCT_NAME}
            </a>
            {frame !== null && (
              <>
                <nav class="nav" aria-label="Dashboard">
                  {NAV.map((item) => (
                    <a href={item.href} aria-current={frame.active === item.id ? "page" : undefined}>
                      {item.label}
                    </a>
                  ))}
                  <a href="/docs">API docs</a>
                </nav>
                <div class="account-menu">
                  <span class="account-name" title={frame.accountName}>
                    {frame.accountName}
                  </span>
                  <form method="post" action="/dashboard/logout">
                    <input type="hidden" name="_csrf" value={frame.csrf} />
                    <button class="btn btn-secondary btn-small" type="submit">
                      Sign out
                    </button>
                  </form>
                </div>
              </>
            )}
          </div>
        </header>
        {children}
      </body>
    </html>
  );
}

export function PageHead({ title, subtitle, children }: { title: string; subtitle?: string; children?: Child }) {
  return (
    <div class="page-head">
      <div>
        <h1>{title}</h1>
        {subtitle !== undefined && <p>{subtitle}</p>}
      </div>
      {children}
    </div>
  );
}

/** A single centred card, for sign-in and error pages. */
export function CenteredCard({ children }: { children: Child }) {
  return (
    <div class="centered">
      <div class="card auth-card">{children}</div>
    </div>
  );
}
