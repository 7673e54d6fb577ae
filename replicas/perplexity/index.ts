import type { ReplicaProvider } from "../shared/replica-provider";
import { createPerplexityApp, PERPLEXITY_PROVIDER_ID } from "./app";
import { PERPLEXITY_LAYOUTS } from "./page";

export const perplexityReplica: ReplicaProvider = {
  id: PERPLEXITY_PROVIDER_ID,
  mountPath: "/perplexity",
  layouts: PERPLEXITY_LAYOUTS,
  createApp: createPerplexityApp,
};
