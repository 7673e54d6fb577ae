/** `google_ai_mode` / `login-links` → `GoogleAiMode` / `LoginLinks` (operationIds, SDK and MCP names). */
export function pascalCase(word: string): string {
  return word
    .split(/[-_.\s]+/)
    .filter((part) => part !== "")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}
