/** The Amazon Rufus replica, mounted by replicas/server.ts under /amazon_rufus; one path segment per marketplace domain. */
import type { ReplicaProvider } from "../shared/replica-provider";
import { createRufusApp, RUFUS_PROVIDER_ID } from "./app";
import { RUFUS_LAYOUTS } from "./page";

export const amazonRufusReplica: ReplicaProvider = {
  id: RUFUS_PROVIDER_ID,
  mountPath: "/amazon_rufus",
  // The scraper fills {domain} with the marketplace domain (amazon.de …): http://host:port/amazon_rufus/amazon.de
  originSuffix: "/{domain}",
  layouts: RUFUS_LAYOUTS,
  createApp: createRufusApp,
};
