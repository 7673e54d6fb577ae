/**
 * A local webhook receiver for the tests (Node, started by ./webhook-receiver-setup.ts), standing in for a customer's
 * server: each endpoint verifies every delivery's signature with the `standardwebhooks` reference library and its
 * secret, records it, and can answer the first N deliveries with an error to make the service retry. It also serves a
 * small DNS-over-HTTPS JSON zone (`/dns-query`) so the URL checks can be tested against names that resolve to public,
 * private, link-local or mixed addresses without the internet.
 *
 *   POST /__control/endpoints {secret, fail_first?, fail_status?} → 201 {id, url}
 *   PUT  /__control/endpoints/{id} {secret}                      → 204 (after a secret rotation)
 *   GET  /__control/endpoints/{id}                               → {deliveries: [...]}
 *   POST /hooks/{id}                                             → 204, or fail_status for the first fail_first deliveries
 */
import { randomUUID } from "node:crypto";
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import { Webhook } from "standardwebhooks";

export interface ReceivedDelivery {
  webhookId: string | null;
  timestamp: string | null;
  signature: string | null;
  body: string;
  /** The signature matched the endpoint's secret (and the timestamp is within the library's tolerance). */
  verified: boolean;
  verifyError: string | null;
  /** What this receiver answered. */
  answeredStatus: number;
  receivedAt: number;
}

interface Endpoint {
  secret: string;
  failFirst: number;
  failStatus: number;
  deliveries: ReceivedDelivery[];
}

/** The DNS zone: name → addresses (A and AAAA by their form). Absent names are NXDOMAIN. */
export const TEST_DNS_ZONE: Readonly<Record<string, readonly string[]>> = {
  "public.example": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
  "private.example": ["10.20.30.40"],
  "linklocal.example": ["169.254.169.254"],
  "mixed.example": ["93.184.215.14", "192.168.1.20"],
  "ula.example": ["fd12:3456:789a::1"],
  "loopback.example": ["127.0.0.1"],
};

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString("utf8");
}

function sendJson(response: ServerResponse, status: number, value: unknown, contentType = "application/json"): void {
  response.writeHead(status, { "content-type": contentType });
  response.end(JSON.stringify(value));
}

function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return typeof value === "string" ? value : null;
}

function dnsAnswer(url: URL): { Status: number; Answer?: Array<{ name: string; type: number; TTL: number; data: string }> } {
  const name = (url.searchParams.get("name") ?? "").replace(/\.$/, "").toLowerCase();
  const type = url.searchParams.get("type") === "AAAA" ? 28 : 1;
  const addresses = TEST_DNS_ZONE[name];
  if (addresses === undefined) return { Status: 3 };
  const matching = addresses.filter((address) => (type === 28) === address.includes(":"));
  return { Status: 0, Answer: matching.map((data) => ({ name: `${name}.`, type, TTL: 60, data })) };
}

function record(endpoint: Endpoint, request: IncomingMessage, body: string): ReceivedDelivery {
  const headers = {
    "webhook-id": header(request, "webhook-id") ?? "",
    "webhook-timestamp": header(request, "webhook-timestamp") ?? "",
    "webhook-signature": header(request, "webhook-signature") ?? "",
  };
  let verifyError: string | null = null;
  try {
    new Webhook(endpoint.secret).verify(body, headers);
  } catch (error) {
    verifyError = error instanceof Error ? error.message : String(error);
  }
  const failing = endpoint.deliveries.length < endpoint.failFirst;
  const delivery: ReceivedDelivery = {
    webhookId: header(request, "webhook-id"),
    timestamp: header(request, "webhook-timestamp"),
    signature: header(request, "webhook-signature"),
    body,
    verified: verifyError === null,
    verifyError,
    answeredStatus: failing ? endpoint.failStatus : 204,
    receivedAt: Date.now(),
  };
  endpoint.deliveries.push(delivery);
  return delivery;
}

export async function startWebhookReceiver(port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const endpoints = new Map<string, Endpoint>();
  const base = () => {
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("the webhook receiver is not listening on TCP");
    return `http://127.0.0.1:${address.port}`;
  };
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://receiver.local");
    const [, first, second] = url.pathname.split("/");
    try {
      if (request.method === "GET" && url.pathname === "/dns-query") {
        sendJson(response, 200, dnsAnswer(url), "application/dns-json");
        return;
      }
      if (first === "__control" && second === "endpoints") {
        const id = url.pathname.split("/")[3];
        if (request.method === "POST" && id === undefined) {
          const body: unknown = JSON.parse(await readBody(request));
          if (typeof body !== "object" || body === null || !("secret" in body) || typeof body.secret !== "string") {
            sendJson(response, 400, { error: "secret is required" });
            return;
          }
          const failFirst = "fail_first" in body && typeof body.fail_first === "number" ? body.fail_first : 0;
          const failStatus = "fail_status" in body && typeof body.fail_status === "number" ? body.fail_status : 500;
          const newId = randomUUID();
          endpoints.set(newId, { secret: body.secret, failFirst, failStatus, deliveries: [] });
          sendJson(response, 201, { id: newId, url: `${base()}/hooks/${newId}` });
          return;
        }
        const endpoint = id === undefined ? undefined : endpoints.get(id);
        if (endpoint === undefined) {
          sendJson(response, 404, { error: "unknown endpoint" });
          return;
        }
        if (request.method === "GET") {
          sendJson(response, 200, { deliveries: endpoint.deliveries });
          return;
        }
        if (request.method === "PUT") {
          const body: unknown = JSON.parse(await readBody(request));
          if (typeof body === "object" && body !== null && "secret" in body && typeof body.secret === "string")
            endpoint.secret = body.secret;
          response.writeHead(204).end();
          return;
        }
      }
      if (request.method === "POST" && first === "hooks" && second !== undefined) {
        const endpoint = endpoints.get(second);
        if (endpoint === undefined) {
          sendJson(response, 410, { error: "unknown endpoint" });
          return;
        }
        const delivery = record(endpoint, request, await readBody(request));
        response.writeHead(delivery.answeredStatus).end();
        return;
      }
      sendJson(response, 404, { error: "not found" });
    } catch (error) {
      sendJson(response, 500, { error: String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: base(),
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error === undefined ? resolve() : reject(error)))),
  };
}
