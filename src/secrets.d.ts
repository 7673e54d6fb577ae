/** Secrets (`wrangler secret put`, locally `.dev.vars`): not in wrangler.toml, so `wrangler types` does not see them. */
interface AppSecrets {
  /** Bearer token of the operator API. */
  ADMIN_TOKEN: string;
  /** Signs dashboard session cookies. */
  SESSION_SECRET: string;
}
interface Env extends AppSecrets {}
declare namespace Cloudflare {
  interface Env extends AppSecrets {}
}
