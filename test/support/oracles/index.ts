/** Every provider's oracle, in the order of the provider list. */
import { amazonRufusOracle } from "./amazon_rufus";
import { chatgptOracle } from "./chatgpt";
import { copilotOracle } from "./copilot";
import { geminiOracle } from "./gemini";
import { googleAiModeOracle } from "./google_ai_mode";
import { grokOracle } from "./grok";
import type { ProviderOracle } from "./oracle";
import { perplexityOracle } from "./perplexity";

export const ORACLES: readonly ProviderOracle[] = [
  chatgptOracle,
  perplexityOracle,
  grokOracle,
  copilotOracle,
  geminiOracle,
  googleAiModeOracle,
  amazonRufusOracle,
];
