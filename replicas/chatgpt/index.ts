/** The ChatGPT replica (chatgpt.md), mounted by the replica server under `/chatgpt`. */
import type { ReplicaProvider } from "../shared/replica-provider";
import { CHATGPT_PROVIDER_ID, createChatgptApp } from "./app";
import { CHATGPT_LAYOUTS } from "./page";

export const chatgptReplica: ReplicaProvider = {
  id: CHATGPT_PROVIDER_ID,
  mountPath: "/chatgpt",
  layouts: CHATGPT_LAYOUTS,
  createApp: createChatgptApp,
};
