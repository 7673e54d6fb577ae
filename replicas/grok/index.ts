import type { ReplicaProvider } from "../shared/replica-provider";
import { createGrokApp, GROK_PROVIDER_ID } from "./app";
import { GROK_LAYOUTS } from "./page";

export const grokReplica: ReplicaProvider = { id: GROK_PROVIDER_ID, mountPath: "/grok", layouts: GROK_LAYOUTS, createApp: createGrokApp };
