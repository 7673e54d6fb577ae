/**
 * The Browser Rendering binding as `puppeteer.connect` gets it, with one repair. @cloudflare/puppeteer 1.4.0's Workers
 * transport (WorkersWebSocketTransport) listens to the DevTools WebSocket with an `async` function; workerd warns "An
 * event handler returned a promise that will be ignored" for it, about a hundred times in a test run. This binding
 * hands puppeteer the very same socket, whose listeners are registered through a synchronous wrapper: what a listener
 * returns is not handed back to workerd, and a listener that fails is logged instead of being lost.
 * Remove it once the dependency registers a synchronous listener.
 */
import type { BrowserWorker } from "@cloudflare/puppeteer";

type SocketListener<Type extends keyof WebSocketEventMap> = (event: WebSocketEventMap[Type]) => unknown;

function logRejection(result: unknown): void {
  if (result instanceof Promise) result.catch((error: unknown) => console.error("A DevTools socket listener failed", error));
}

function registerListenersSynchronously(socket: WebSocket): void {
  const register = socket.addEventListener.bind(socket);
  const addEventListener = <Type extends keyof WebSocketEventMap>(type: Type, listener: SocketListener<Type>): void => {
    register(type, (event: WebSocketEventMap[Type]) => {
      logRejection(listener(event));
    });
  };
  Object.defineProperty(socket, "addEventListener", { value: addEventListener, configurable: true });
}

export function devtoolsBinding(binding: BrowserWorker): BrowserWorker {
  return {
    fetch: async (input, init) => {
      const response = await binding.fetch(input, init);
      if (response.webSocket !== null) registerListenersSynchronously(response.webSocket);
      return response;
    },
  };
}
