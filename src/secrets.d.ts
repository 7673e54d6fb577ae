/** Secrets (`wrangler secret put`, locally `.dev.vars`): not in wrangler.toml, so `wrangler types` does not see them. */
interface Env {
  /** Bearer token of the operator API. */
  ADMIN_TOKEN: string;
  /** Signs dashboard session cookies. */
  SESSION_SECRET: string;
}
