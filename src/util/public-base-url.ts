/**
 * The deployment's public address as configured (PUBLIC_BASE_URL). The routes build the links they hand out from it
 * (src/http/request-context.ts, src/http/docs.ts) and the canaries give it to the pipeline for the hosted markdown link
 * (src/status/canaries.ts): it is a setting of the deployment, not of an HTTP request, so it lives below both.
 */

/** The configured public origin (scheme, host, optional path prefix; no trailing slash), or null when unset or unusable. */
export function configuredBaseUrl(env: Pick<Env, "PUBLIC_BASE_URL">): string | null {
  const configured = (env.PUBLIC_BASE_URL ?? "").trim();
  if (configured === "") return null;
  try {
    const url = new URL(configured);
    if (url.protocol !== "https:" && url.protocol !== "http:") return null;
    return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  } catch {
    return null;
  }
}
