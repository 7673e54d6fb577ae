import { availableParallelism } from "node:os";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export const TEST_ADMIN_TOKEN = "test-admin-token-0123456789abcdefghijkl";

/** The Workers runtime with real D1, KV, Queues, Durable Objects and Browser Rendering, pointed at the replicas. */
function workersRuntime() {
  return cloudflareTest(async ({ inject }) => {
    const replicaUrl = inject<string>("replicaUrl");
    // `PROVIDER_ORIGIN_<ID>` of every provider, pointing its scraper at its replica (test/support/replicas-setup.ts).
    const replicaOrigins = inject<Record<string, string>>("replicaOrigins");
    const webhookReceiverUrl = inject<string>("webhookReceiverUrl");
    return {
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations("./migrations"),
          ADMIN_TOKEN: TEST_ADMIN_TOKEN,
          SESSION_SECRET: "test-session-secret-0123456789abcdef",
          // Encrypts provider accounts at rest (src/provider-accounts/session-cipher.ts); at least 32 characters.
          PROVIDER_ACCOUNTS_KEY: "test-provider-accounts-key-0123456789abcdef",
          REPLICA_URL: replicaUrl,
          ...replicaOrigins,
          // A small pool and queue so the tests can fill them.
          BROWSER_POOL_SIZE: "2",
          BROWSER_POOL_QUEUE_LIMIT: "4",
          // Back-offs of 1, 3 and 9 s keep the four-attempt tests short.
          JOB_RETRY_BASE_SECONDS: "1",
          // Webhooks: the receiver of test/support/webhook-receiver.ts is on loopback, its DNS-over-HTTPS zone stands in for
          // public DNS, and failed deliveries are retried after 1, 3, 12… s.
          WEBHOOK_ALLOW_LOOPBACK: "true",
          WEBHOOK_RECEIVER_URL: webhookReceiverUrl,
          WEBHOOK_DNS_RESOLVER: `${webhookReceiverUrl}/dns-query`,
          WEBHOOK_RETRY_BASE_SECONDS: "1",
          // One line per request (src/http/access-log.ts) is noise across thousands of test requests; one test turns it on.
          ACCESS_LOG: "0",
        },
      },
    };
  });
}

/**
 * Five levels, one folder each under test/ (test/README.md): `unit` runs pure code in Node, browser-free, files in
 * parallel; `replicas` runs each replica's own tests in Node (wire format, faults, layouts; a few pages in Chromium
 * through playwright-core); `integration` runs browser-free tests inside workerd (real D1, KV, Queues, Durable Objects),
 * files in parallel; `e2e` drives every scraper through the Worker with real Chromium against its replica (one file per
 * process in `npm test`); `browser` drives the dashboard with playwright-core in Debian's Chromium against a `wrangler dev` of
 * the whole Worker. Helpers shared between levels live in test/support/ (test/support/workers/ for the workerd levels).
 */
export default defineConfig({
  test: {
    // vitest's own default is one worker fewer than the cores: a single worker on two cores, so the levels whose files
    // run in parallel (unit, replicas, integration) would not. Their files wait on workerd and I/O as much as they
    // compute; one worker per core took 124 s instead of 201 s on two cores.
    maxWorkers: availableParallelism(),
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        // Each replica served on a free port in this process; the page tests launch a short-lived Chromium (skipped
        // without one). Light enough to run beside `unit` and `integration` (scripts/run-tests.sh).
        test: {
          name: "replicas",
          include: ["test/replicas/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        plugins: [workersRuntime()],
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          globalSetup: ["test/support/replicas-setup.ts", "test/support/webhook-receiver-setup.ts"],
          setupFiles: ["test/support/workers/setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [workersRuntime()],
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/support/replicas-setup.ts", "test/support/webhook-receiver-setup.ts"],
          setupFiles: ["test/support/workers/setup.ts"],
          // Files in one run share one replica server, whose fault switches are global: one at a time. `npm test`
          // runs each file in a process of its own instead, several at once (scripts/run-chromium-lanes.ts).
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The dashboard in a real headless Chromium against `wrangler dev` (the global setup starts it).
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/browser/global-setup.ts"],
          fileParallelism: false,
          testTimeout: 90_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
