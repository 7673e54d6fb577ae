/** Which countries have used their browser pool (D1), so the operator view can list every pool. */

export async function recordPoolCountry(db: D1Database, country: string, now = new Date()): Promise<void> {
  await db.prepare("INSERT OR IGNORE INTO browser_pools (country, first_used_at) VALUES (?, ?)").bind(country, now.toISOString()).run();
}

export async function listPoolCountries(db: D1Database): Promise<string[]> {
  const { results } = await db.prepare("SELECT country FROM browser_pools ORDER BY country").all<{ country: string }>();
  return results.map((row) => row.country);
}
