/**
 * Hosted markdown documents (KV): `{base_url}/md/{job_id}.md`, kept for 24 hours (spec §8).
 *
 * A synchronous answer goes out while its document is still being written (src/pipeline/pipeline.ts), so a caller that
 * fetches `markdown_url` at once may arrive before the write: a read that finds nothing looks again for up to ~1 s
 * before it answers 404, and a background write that fails is tried once more.
 */
import { logLine, type LogSubject } from "../util/log-line";

const HOSTED_MARKDOWN_TTL_SECONDS = 24 * 60 * 60;

/** Pauses between the looks of a read that found nothing (1 s in all): a write lands in ~10 ms locally. */
const LATE_WRITE_LOOKS_MS = [50, 150, 300, 500] as const;

export function hostedMarkdownUrl(baseUrl: string, jobId: string): string {
  return `${baseUrl}/md/${jobId}.md`;
}

export async function storeHostedMarkdown(kv: Pick<KVNamespace, "put">, jobId: string, markdown: string): Promise<void> {
  await kv.put(`md:${jobId}`, markdown, { expirationTtl: HOSTED_MARKDOWN_TTL_SECONDS });
}

/** `storeHostedMarkdown` for work that runs after the response: one more try on failure, then logged; never rejects. */
export async function storeHostedMarkdownAfterResponse(
  kv: Pick<KVNamespace, "put">,
  jobId: string,
  markdown: string,
  logSubject?: LogSubject,
): Promise<void> {
  try {
    await storeHostedMarkdown(kv, jobId, markdown);
  } catch {
    await storeHostedMarkdown(kv, jobId, markdown).catch((cause: unknown) => {
      console.error(logLine(logSubject, "could not write a hosted markdown document; its markdown_url answers 404"), cause);
    });
  }
}

/** The document, or null when it is not there (expired, never written) after waiting for a write that may be landing. */
export async function readHostedMarkdown(kv: KVNamespace, jobId: string): Promise<string | null> {
  const key = `md:${jobId}`;
  let markdown = await kv.get(key, "text");
  for (const pauseMs of LATE_WRITE_LOOKS_MS) {
    if (markdown !== null) break;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    markdown = await kv.get(key, "text");
  }
  return markdown;
}
