/**
 * Collects miniflare's log line per delivered queue batch (`QUEUE jobs 8/8 (6123ms)`: acked/size and how long the
 * consumer took), so the throughput section can show where the local queue's batch boundaries fall.
 */

export interface QueueBatch {
  queue: string;
  size: number;
  acked: number;
  durationMs: number;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: wrangler colours the line with ANSI escapes
const ANSI = /\u001b\[[0-9;]*m/g;
const BATCH_LINE = /QUEUE\s+(\S+)\s+(\d+)\/(\d+)(?:\s+\((\d+)ms\))?/;

export class QueueBatches {
  private batches: QueueBatch[] = [];

  /** Feed every line wrangler prints; other lines are ignored. */
  readonly accept = (line: string): void => {
    const match = BATCH_LINE.exec(line.replace(ANSI, ""));
    if (match === null) return;
    const [, queue = "", acked = "0", size = "0", duration = "0"] = match;
    this.batches.push({ queue, size: Number(size), acked: Number(acked), durationMs: Number(duration) });
  };

  clear(): void {
    this.batches = [];
  }

  list(): readonly QueueBatch[] {
    return this.batches;
  }
}
