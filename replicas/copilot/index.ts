/** The Copilot replica: page and REST calls (app.ts) plus the chat WebSocket (socket.ts) on the replica server. */
import type { ReplicaProvider } from "../shared/replica-provider";
import { createCopilotApp } from "./app";
import { COPILOT_PROVIDER_ID } from "./faults";
import { COPILOT_LAYOUTS } from "./page";
import { attachCopilotSocket } from "./socket";

const MOUNT_PATH = "/copilot";

export const copilotReplica: ReplicaProvider = {
  id: COPILOT_PROVIDER_ID,
  mountPath: MOUNT_PATH,
  layouts: COPILOT_LAYOUTS,
  createApp: createCopilotApp,
  attachToServer: attachCopilotSocket(MOUNT_PATH),
};
