/** Hosted markdown documents (KV): `{base_url}/md/{job_id}.md`, kept for 24 hours (spec §8). */

export const HOSTED_MARKDOWN_TTL_SECONDS = 24 * 60 * 60;

export function hostedMarkdownUrl(baseUrl: string, jobId: string): string {
  return `${baseUrl}/md/${jobId}.md`;
}

export async function storeHostedMarkdown(kv: KVNamespace, jobId: string, markdown: string): Promise<void> {
  await kv.put(`md:${jobId}`, markdown, { expirationTtl: HOSTED_MARKDOWN_TTL_SECONDS });
}

export async function readHostedMarkdown(kv: KVNamespace, jobId: string): Promise<string | null> {
  return kv.get(`md:${jobId}`, "text");
}
