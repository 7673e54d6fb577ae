/**
 * The rate limits per JSON-RPC request, not per POST. A POST to `/mcp` may carry a JSON-RPC array of up to 100
 * messages (batching is part of MCP 2025-03-26, one of the protocol versions the SDK still negotiates), yet the key
 * middleware admits the POST once. Every request we serve (`tools/call`, `tools/list`) therefore counts as one HTTP
 * request against the key's and the account's per-minute limits: the first one of a POST with the POST's own admission,
 * each further one on its own, so an array of N tool calls costs what N HTTP requests cost.
 */
import type { AuthenticatedKey } from "../auth/api-keys";
import { admitRequestRate } from "../limits/request-rate-limiter";
import type { LogSubject } from "../util/log-line";

export class PostAdmission {
  private requestsSeen = 0;

  constructor(
    private readonly env: Env,
    private readonly key: Pick<AuthenticatedKey, "accountId" | "keyId">,
    private readonly logSubject: LogSubject,
  ) {}

  /** Counts one JSON-RPC request of this POST, or throws the HTTP API's 429 (TooManyRequestsError). */
  async admit(): Promise<void> {
    this.requestsSeen += 1;
    // The first request of the POST was counted by apiKeyAuth, which admitted the POST itself.
    if (this.requestsSeen === 1) return;
    await admitRequestRate(this.env, this.key, this.logSubject);
  }
}
