/**
 * HTML → markdown through node-html-markdown (pure JS, runs in Workers): headings, emphasis, lists (nested), tables,
 * links, code blocks and block quotes. Providers first remove their page chrome (buttons, disclaimers, citation chips)
 * from the tree, then convert what is left.
 */
import { NodeHtmlMarkdown } from "node-html-markdown";

const converter = new NodeHtmlMarkdown({
  bulletMarker: "-",
  codeBlockStyle: "fenced",
  emDelimiter: "*",
  strongDelimiter: "**",
  // Keep provider URLs exactly as they are; markdown escaping is the converter's job.
  keepDataImages: false,
  maxConsecutiveNewlines: 2,
  useLinkReferenceDefinitions: false,
  useInlineLinks: true,
});

/** Converts an HTML fragment to markdown, trimmed. */
export function htmlToMarkdown(html: string): string {
  return converter.translate(html).trim();
}
