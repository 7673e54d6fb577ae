/** Pool settings from wrangler.toml vars, with the documented defaults when unset or invalid. */
export interface PoolConfig {
  /** Browser sessions per provider per country (a session serves one provider's domains). */
  size: number;
  /** Browser sessions per country, all providers together (Browser Rendering limits concurrent browsers). */
  maxSessions: number;
  /** Scrapes that may wait for a busy session per country; beyond it → 429. */
  queueLimit: number;
  /** Browser Rendering keep_alive: how long an idle session survives between scrapes (max 10 minutes). */
  keepAliveMs: number;
  /** New sessions the pool may start per country per minute (Browser Rendering limits new browsers per minute). */
  launchesPerMinute: number;
}

function integerVar(value: string | undefined, fallback: number, min: number, max: number): number {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed >= min && parsed <= max ? parsed : fallback;
}

export function poolConfig(env: Env): PoolConfig {
  return {
    size: integerVar(env.BROWSER_POOL_SIZE, 2, 1, 50),
    maxSessions: integerVar(env.BROWSER_POOL_MAX_SESSIONS, 8, 1, 200),
    queueLimit: integerVar(env.BROWSER_POOL_QUEUE_LIMIT, 16, 0, 1000),
    keepAliveMs: integerVar(env.BROWSER_KEEP_ALIVE_MS, 600_000, 10_000, 600_000),
    launchesPerMinute: integerVar(env.BROWSER_LAUNCHES_PER_MINUTE, 30, 0, 1000),
  };
}

/**
 * Browser sessions the whole service may keep at once, every country together (`BROWSER_GLOBAL_MAX_SESSIONS`). Browser
 * Rendering's concurrency limits are per Cloudflare account, so one customer scraping in many countries must not be
 * able to spend them for every other country.
 */
export function globalMaxSessions(env: Env): number {
  return integerVar(env.BROWSER_GLOBAL_MAX_SESSIONS, 20, 1, 1000);
}
