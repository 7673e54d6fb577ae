/**
 * A test bench for the capture layer (not a provider): a page whose script makes the kinds of exchanges provider pages
 * make — a streamed `fetch`, a progressive `XMLHttpRequest`, a WebSocket, a FormData upload — against endpoints that
 * echo what they received and answer in paced chunks. test/e2e/capture.test.ts drives it with real Chromium.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { Hono } from "hono";
import { WebSocketServer } from "ws";
import { pacedBody } from "../shared/paced-body";
import type { ReplicaEnv } from "../shared/replica-env";

export const CAPTURE_LAB_PATH = "/__capture-lab";

const PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>capture lab</title></head><body><p>capture lab</p>
<script>
const base = new URL("./", location.href);
async function readAll(response) {
  const reader = response.body.getReader();
  let text = "";
  const decoder = new TextDecoder();
  for (;;) { const { done, value } = await reader.read(); if (done) break; text += decoder.decode(value, { stream: true }); }
  return text + decoder.decode();
}
window.labFetch = async (body) => readAll(await fetch(new URL("stream", base), { method: "POST", headers: { "content-type": "application/json" }, body }));
window.labFetchRequest = async (body) => readAll(await fetch(new Request(new URL("stream", base), { method: "POST", body })));
window.labXhr = (body) => new Promise((resolve, reject) => {
  const xhr = new XMLHttpRequest();
  xhr.open("POST", new URL("stream", base));
  xhr.onload = () => resolve(xhr.responseText);
  xhr.onerror = () => reject(new Error("xhr failed"));
  xhr.send(body);
});
window.labFormData = async () => { const form = new FormData(); form.append("a", "1"); return readAll(await fetch(new URL("stream", base), { method: "POST", body: form })); };
window.labWebSocket = (messages) => new Promise((resolve, reject) => {
  const socket = new WebSocket(new URL("ws", base).href.replace(/^http/, "ws"));
  const received = [];
  socket.onopen = () => { for (const message of messages) socket.send(message); };
  socket.onmessage = (event) => { received.push(event.data); if (received.length === messages.length) socket.close(1000, "done"); };
  socket.onclose = () => resolve(received);
  socket.onerror = () => reject(new Error("socket failed"));
});
</script></body></html>`;

/** The body answered to POST /stream: the request body echoed, then five chunks with a multi-byte character. */
function streamChunks(requestBody: string): Uint8Array[] {
  const encoder = new TextEncoder();
  const chunks = [encoder.encode(`echo:${requestBody}\n`)];
  for (let index = 0; index < 5; index += 1) chunks.push(encoder.encode(`chunk ${index} 🚀\n`));
  return chunks;
}

export function createCaptureLabApp(): Hono<ReplicaEnv> {
  const app = new Hono<ReplicaEnv>();
  app.get("/", (c) => c.html(PAGE));
  app.post("/stream", async (c) => {
    const body = await c.req.text();
    const stream = pacedBody(streamChunks(body), { chunkMs: 60, ending: { kind: "close" } });
    return new Response(stream, { headers: { "content-type": "text/plain; charset=utf-8", "transfer-encoding": "chunked" } });
  });
  return app;
}

/** Echoes every WebSocket message back as `echo:<message>` on `<base>/__capture-lab/ws`. */
export function attachCaptureLabSocket(server: Server): void {
  const sockets = new WebSocketServer({ noServer: true });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(request.url ?? "/", "http://localhost").pathname !== `${CAPTURE_LAB_PATH}/ws`) return;
    sockets.handleUpgrade(request, socket, head, (connection) => {
      connection.on("message", (data) => connection.send(`echo:${data.toString()}`));
    });
  });
}
