/** Worker entry: HTTP (Hono), the jobs queue consumer, the canaries' Cron Trigger, and the Durable Object classes. */
import { createApp } from "./app";
import { handleJobBatch } from "./jobs/consumer";
import { recoverJobs } from "./jobs/recovery";
import { handleScheduled } from "./status/scheduled";

export { BrowserBudget } from "./browser/browser-budget";
export { BrowserPool } from "./browser/browser-pool";
export { JobRecord } from "./jobs/job-record";
export { RequestRateLimiter } from "./limits/request-rate-limiter";
export { ScrapeCoalescer } from "./pipeline/scrape-coalescer";

const app = createApp();
/** Must match the every-minute entry of wrangler.toml [triggers] crons. */
const JOB_RECOVERY_CRON = "* * * * *";

export default {
  fetch: app.fetch,
  queue: handleJobBatch,
  // The Cron Triggers (wrangler.toml): the every-minute one recovers jobs whose queue message was lost
  // (src/jobs/recovery.ts); every other one runs the provider canaries for the status page (src/status/).
  scheduled: async (controller, env, ctx) => {
    if (controller.cron === JOB_RECOVERY_CRON) await recoverJobs(env);
    else await handleScheduled(controller, env, ctx);
  },
} satisfies ExportedHandler<Env>;
