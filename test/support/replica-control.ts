/**
 * The fault control of a running replica server (`/__control/*`, replicas/control.ts) as the replica tests drive it:
 * faults, pacing, layouts and variation in, counters and recorded requests out.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { ControlState } from "../../replicas/control";
import { type RunningReplicaServer, startReplicaServer } from "../../replicas/server";

export type ReplicaProviderState = ControlState["providers"][string];

export class ReplicaControl {
  /** `serverUrl`: the replica server's own origin (`RunningReplicaServer.url`), not a provider's path below it. */
  constructor(private readonly serverUrl: string) {}

  /** `POST /__control/<path>` with a JSON body; the response as it came (the control API's own tests check refusals). */
  post(path: string, body: unknown): Promise<Response> {
    return fetch(`${this.serverUrl}/__control/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  /** `post`, for a test that only sets the replica up: a refusal fails the test with the replica's reason. */
  async postOk(path: string, body: unknown): Promise<void> {
    const response = await this.post(path, body);
    if (response.status !== 200) throw new Error(`replica control ${path}: HTTP ${response.status} ${await response.text()}`);
  }

  /** `GET /__control/state`: every mounted provider's faults, pacing, counters and recorded requests. */
  async state(): Promise<ControlState> {
    const response = await fetch(`${this.serverUrl}/__control/state`);
    return (await response.json()) as ControlState;
  }

  /** One provider's part of the state; throws when the server does not mount that provider. */
  async providerState(provider: string): Promise<ReplicaProviderState> {
    const own = (await this.state()).providers[provider];
    if (own === undefined) throw new Error(`${provider} is not mounted on the replica server`);
    return own;
  }
}

export interface ReplicaServerForTests {
  /** The server's origin; a provider's site is below it (`${url}/grok`). */
  readonly url: string;
  readonly control: ReplicaControl;
}

/**
 * One replica server for a test file, on a free port: started before the file's first test, its fault control reset
 * (faults, pacing, layouts, variation, counters) before each test so no test sees another's setup, closed after the
 * last. Call it at the top level of the file; read `url` and `control` inside tests and hooks, once it has started.
 */
export function useReplicaServer(): ReplicaServerForTests {
  let running: { server: RunningReplicaServer; control: ReplicaControl } | undefined;
  const started = () => {
    if (running === undefined) throw new Error("the replica server starts in beforeAll: read it inside a test or hook");
    return running;
  };
  beforeAll(async () => {
    const server = await startReplicaServer({ port: 0 });
    running = { server, control: new ReplicaControl(server.url) };
  });
  afterAll(async () => {
    await running?.server.close();
  });
  beforeEach(async () => {
    await started().control.postOk("reset", {});
  });
  return {
    get url() {
      return started().server.url;
    },
    get control() {
      return started().control;
    },
  };
}
