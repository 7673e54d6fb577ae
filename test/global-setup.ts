/** Starts the provider replicas in Node for the integration tests (the Worker reaches them only through Chromium). */
import type { TestProject } from "vitest/node";
import { startReplicaServer } from "../replicas/server";

declare module "vitest" {
  interface ProvidedContext {
    replicaUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startReplicaServer({ port: 0 });
  project.provide("replicaUrl", server.url);
  return () => server.close();
}
