/**
 * A batch end to end with real Chromium against the Grok replica (issue #15): three items with their own modes run as
 * real scrapes through the queue, one of them hits a login wall (a failure no retry fixes) and is refunded on its own,
 * and every job's final status reaches the batch's webhook_url, signed and verified by the local receiver.
 */
import { afterEach, describe, expect, it } from "vitest";
import { accountWebhook, postBatch, receiverEndpoint, waitFor, waitForDeliveries, waitForTerminal } from "../support/workers/async-helpers";
import { api, balanceOf, createTestAccount, ledgerOf, replicaControl, replicaRequests } from "../support/workers/helpers";

afterEach(async () => {
  await replicaControl("reset");
});

describe("a batch of real scrapes", () => {
  it("runs every item with its own parameters, refunds only the failed one, and delivers each final status", async () => {
    const account = await createTestAccount(30);
    const { secret } = await accountWebhook(account.accountId);
    const endpoint = await receiverEndpoint(secret);
    // The first exchange with the replica meets a login wall: exactly one job fails, at once and for good.
    await replicaControl("faults", { provider: "grok", fault: "login_wall", count: 1 });
    const items = [
      { prompt: `web-sources-only batch ${crypto.randomUUID()}`, mode: "MODEL_MODE_FAST", bypass_cache: true },
      { prompt: `no-posts batch ${crypto.randomUUID()}`, mode: "MODEL_MODE_EXPERT", bypass_cache: true },
      { prompt: `Batch default ${crypto.randomUUID()}`, bypass_cache: true, timeout: 90 },
    ];
    const response = await postBatch({ scraper: "grok", items, webhook_url: endpoint.url }, { apiKey: account.apiKey });
    expect(response.status).toBe(202);
    const { batch_id: batchId, job_ids: jobIds } = (await response.json()) as { batch_id: string; job_ids: string[] };
    expect(await balanceOf(account.accountId)).toBe(21);

    const finished = await Promise.all(jobIds.map((id) => waitForTerminal(id, 110_000)));
    expect(finished.map((job) => job.status).sort()).toEqual(["done", "done", "failed"]);
    for (const [index, job] of finished.entries()) {
      if (job.status === "failed") {
        expect(job.attempts).toBe(1);
        expect(job.error).toMatch(/sign in|login/i);
        continue;
      }
      expect(job.result).toMatchObject({ scraper: "grok", status: "done", prompt: items[index]?.prompt, cached: false });
      expect(job.result?.mode).toBe(items[index]?.mode ?? "MODEL_MODE_AUTO");
    }
    // The two successes are paid for; the failed job's charge was given back.
    expect(await balanceOf(account.accountId)).toBe(24);
    const ledger = await ledgerOf(account.accountId);
    const failedId = jobIds[finished.findIndex((job) => job.status === "failed")];
    expect(ledger.filter((row) => row.kind === "refund").map((row) => row.operation_id)).toEqual([failedId]);
    // Every scrape that reached the replica sent the prompt of its own item.
    const sentPrompts = (await replicaRequests("grok")).map((request) => JSON.stringify(request.body));
    for (const [index, job] of finished.entries()) {
      if (job.status === "done") expect(sentPrompts.some((body) => body.includes(items[index]?.prompt ?? "?"))).toBe(true);
    }

    const deliveries = await waitForDeliveries(endpoint, 3);
    expect(deliveries.every((delivery) => delivery.verified)).toBe(true);
    const events = deliveries.map((delivery) => JSON.parse(delivery.body) as { type: string; data: { job_id: string; status: string } });
    expect(events.map((event) => [event.data.job_id, event.type]).sort()).toEqual(
      jobIds.map((id, index) => [id, `job.${finished[index]?.status}`]).sort(),
    );

    const batch = await waitFor("the batch to be done", async () => {
      const body = (await (await api(`/batches/${batchId}`, { apiKey: account.apiKey })).json()) as {
        status: string;
        counts: Record<string, number>;
      };
      return body.status === "done" ? body : undefined;
    });
    expect(batch.counts).toEqual({ pending: 0, done: 2, failed: 1 });
  }, 150_000);
});
