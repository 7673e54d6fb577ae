/** The Google AI Mode replica as the replica server mounts it (`/google_ai_mode`, origin override of the same path). */
import type { ReplicaProvider } from "../shared/replica-provider";
import { AI_MODE_PROVIDER_ID, createAiModeApp } from "./app";
import { AI_MODE_LAYOUTS } from "./layouts";

export const googleAiModeReplica: ReplicaProvider = {
  id: AI_MODE_PROVIDER_ID,
  mountPath: "/google_ai_mode",
  layouts: AI_MODE_LAYOUTS,
  createApp: createAiModeApp,
};
