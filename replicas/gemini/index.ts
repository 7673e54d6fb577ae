import type { ReplicaProvider } from "../shared/replica-provider";
import { createGeminiApp, GEMINI_MOUNT_PATH, GEMINI_PROVIDER_ID } from "./app";
import { GEMINI_LAYOUTS } from "./layouts";

export const geminiReplica: ReplicaProvider = {
  id: GEMINI_PROVIDER_ID,
  mountPath: GEMINI_MOUNT_PATH,
  layouts: GEMINI_LAYOUTS,
  createApp: createGeminiApp,
};
