/** Worker entry: HTTP (Hono), the jobs queue consumer, the canaries' Cron Trigger, and the Durable Object classes. */
import { createApp } from "./app";
import { handleJobBatch } from "./jobs/consumer";
import { handleScheduled } from "./status/scheduled";

export { BrowserBudget } from "./browser/browser-budget";
export { BrowserPool } from "./browser/browser-pool";
export { JobRecord } from "./jobs/job-record";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: handleJobBatch,
  // The Cron Trigger: provider canaries for the status page (src/status/).
  scheduled: handleScheduled,
} satisfies ExportedHandler<Env>;
