/**
 * Asks a local stack that has just (re)started to recover its jobs at once (`POST /admin/jobs/recover`,
 * src/jobs/recovery.ts): attempts that began before `startedAt` died with the previous stack, and the queue messages of
 * jobs waiting then may be gone. `npm start` and the restart test (test/restart/restart-test.ts) call it once the API is up.
 */

export interface JobRecoveryReport {
  checked: number;
  requeued: number;
  dead_attempts: number;
  missing_deliveries: number;
  slots_released: number;
}

function isRecoveryReport(value: unknown): value is JobRecoveryReport {
  if (typeof value !== "object" || value === null) return false;
  return ["checked", "requeued", "dead_attempts", "missing_deliveries", "slots_released"].every(
    (name) => typeof Reflect.get(value, name) === "number",
  );
}

export async function recoverJobsAfterStart(baseUrl: string, adminToken: string, startedAt: number): Promise<JobRecoveryReport> {
  const response = await fetch(`${baseUrl}/admin/jobs/recover`, {
    method: "POST",
    headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ restarted_at: startedAt }),
  });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok || !isRecoveryReport(body)) throw new Error(`POST /admin/jobs/recover answered HTTP ${response.status}`);
  return body;
}
