/**
 * Vitest global setup of the Workers-runtime projects: starts the local webhook receiver (./webhook-receiver.ts) and
 * hands its URL to vitest.config.ts, which gives it to the Worker as WEBHOOK_RECEIVER_URL and WEBHOOK_DNS_RESOLVER.
 */
import type { TestProject } from "vitest/node";
import { startWebhookReceiver } from "./webhook-receiver";

declare module "vitest" {
  interface ProvidedContext {
    webhookReceiverUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const receiver = await startWebhookReceiver();
  project.provide("webhookReceiverUrl", receiver.url);
  return () => receiver.close();
}
