/**
 * The Cron Trigger (wrangler.toml [triggers] crons): a canary round, the retention sweeps of the outcome log, of the
 * accounts' request logs and of expired evidence files, and a fresh status snapshot so the round's result is on the status page at once.
 */
import { pruneRequestLog } from "../accounts/request-log";
import { sweepExpiredEvidence } from "../evidence/evidence-store";
import { logLine, serviceSubject } from "../util/log-line";
import { runCanaryRound } from "./canaries";
import { pruneScrapeOutcomes } from "./outcome-log";
import { refreshStatusSnapshot } from "./status-snapshot";

/**
 * Every cron of this Worker runs the canaries (there is one). The round starts now rather than at
 * `controller.scheduledTime`: a round is identified by its start, and two manual runs must never share one.
 */
export async function handleScheduled(_controller: ScheduledController, env: Env, _ctx: ExecutionContext): Promise<void> {
  await runCanaryRound(env, Date.now());
  await pruneScrapeOutcomes(env.DB);
  await pruneRequestLog(env.DB);
  await sweepExpiredEvidence(env.EVIDENCE).catch((error: unknown) => {
    console.error(logLine(serviceSubject("evidence sweep"), "could not delete expired evidence"), error);
  });
  await refreshStatusSnapshot(env.DB);
}
