/**
 * The two sides of a capture file as a provider sees them. While scraping, a provider hands its recorder exactly what it
 * hands its pure parser (the captured exchanges, and the few values it reads from the page); on replay, the provider
 * reads the same inputs back by name and runs the same parser. The names are the provider's own ("conversation",
 * "answer_html"); the file format (src/capture-files/format.ts) never interprets them.
 *
 * It lives below the providers, with the captured exchanges it records: the provider contract names these types, so
 * they cannot sit with the capture files (src/capture-files/), which replay through the provider registry above.
 */
import type { z } from "@hono/zod-openapi";
import type { CapturedExchange, CaptureTransport, StreamCapture } from "./types";

/** Where a provider's scrape reports its parser's inputs when the scrape is being captured (`npm run capture`). */
export interface ScrapeRecorder {
  /**
   * An exchange the parser reads, under the name the provider's `replay` asks for. Navigation modules that hand out
   * the narrower StreamCapture view still pass the full exchange at run time; what it lacks is filled with neutral values.
   */
  exchange(name: string, exchange: CapturedExchange | StreamCapture): void;
  /** A value read from the page that the parser reads too (DOM HTML, a flag, a small object); stored as JSON. */
  snapshot(name: string, value: unknown): void;
}

/** The recorded inputs of a provider's parser, read back by the provider's `replay`. */
export interface RecordedInputs {
  /** The origin the scrape ran against (a replica or the real site), for parsers that resolve relative URLs. */
  readonly origin: string;
  /** The exchange recorded under `name`; a missing one is a ReplayInputError (the capture does not fit this provider). */
  exchange(name: string): CapturedExchange;
  /** The snapshot recorded under `name` checked against `schema`, or undefined when none was recorded. */
  snapshot<T>(name: string, schema: z.ZodType<T>): T | undefined;
}

/** A capture file that lacks an input its provider's replay needs, or holds one of the wrong shape. */
export class ReplayInputError extends Error {}

/** What a scrape recorded: the exchanges and snapshots by name, in the order the provider reported them. */
export class CaptureRecorder implements ScrapeRecorder {
  readonly exchanges = new Map<string, CapturedExchange>();
  readonly snapshots = new Map<string, unknown>();

  exchange(name: string, exchange: CapturedExchange | StreamCapture): void {
    this.exchanges.set(name, completeExchange(name, exchange));
  }

  snapshot(name: string, value: unknown): void {
    // a JSON round trip now, so that what replays is exactly what the file will hold (no undefined, no class instances)
    const json = JSON.stringify(value);
    this.snapshots.set(name, json === undefined ? null : JSON.parse(json));
  }

  get isEmpty(): boolean {
    return this.exchanges.size === 0 && this.snapshots.size === 0;
  }
}

const TRANSPORTS: readonly CaptureTransport[] = ["fetch", "xhr", "websocket"];

/** The exchange with every CapturedExchange field, read from the object itself where present. */
function completeExchange(name: string, exchange: CapturedExchange | StreamCapture): CapturedExchange {
  const field = (key: string): unknown => Reflect.get(exchange, key);
  const rule = field("rule");
  const transport = TRANSPORTS.find((known) => known === field("transport"));
  const method = field("method");
  const times = field("chunkTimesMs");
  const frames = "frames" in exchange ? exchange.frames : [];
  const startedAt = field("startedAt");
  return {
    rule: typeof rule === "string" ? rule : name,
    transport: transport ?? "fetch",
    url: exchange.url,
    method: typeof method === "string" ? method : "GET",
    status: exchange.status,
    contentType: exchange.contentType,
    requestBody: exchange.requestBody,
    chunks: [...exchange.chunks],
    chunkTimesMs: exchange.chunks.map((_chunk, index) => {
      const at: unknown = Array.isArray(times) ? times[index] : undefined;
      return typeof at === "number" ? at : 0;
    }),
    frames: [...frames],
    complete: exchange.complete,
    error: exchange.error,
    startedAt: typeof startedAt === "number" ? startedAt : 0,
  };
}

/** Recorded inputs held in memory (decoded from a file, or straight from a recorder). */
export class InMemoryInputs implements RecordedInputs {
  constructor(
    readonly origin: string,
    private readonly exchanges: ReadonlyMap<string, CapturedExchange>,
    private readonly snapshots: ReadonlyMap<string, unknown>,
  ) {}

  exchange(name: string): CapturedExchange {
    const exchange = this.exchanges.get(name);
    if (exchange === undefined) {
      const recorded = [...this.exchanges.keys()].join(", ") || "none";
      throw new ReplayInputError(`the capture has no exchange named "${name}" (recorded: ${recorded})`);
    }
    return exchange;
  }

  snapshot<T>(name: string, schema: z.ZodType<T>): T | undefined {
    if (!this.snapshots.has(name)) return undefined;
    const checked = schema.safeParse(this.snapshots.get(name));
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new ReplayInputError(
        `snapshot "${name}" does not have the expected shape: ${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`,
      );
    }
    return checked.data;
  }
}
