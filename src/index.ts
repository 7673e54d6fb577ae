/** Worker entry: HTTP (Hono), the jobs queue consumer, and the Durable Object classes. */
import { createApp } from "./app";
import { handleJobBatch } from "./jobs/consumer";

export { BrowserPool } from "./browser/browser-pool";
export { JobRecord } from "./jobs/job-record";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: handleJobBatch,
} satisfies ExportedHandler<Env>;
