/** Microsoft Copilot (copilot.microsoft.com), the productivity assistant (spec §2.6, §4.3). */
import { uniqueSources } from "../../schemas/cited-sources";
import { defineProvider } from "../provider-contract";
import { COPILOT_DOMAINS, COPILOT_PARAMS, CopilotAnswerSchema } from "./declaration";
import { captureCopilotExchange } from "./navigate";
import { parseCopilotChat } from "./parse";

/** The name the chat WebSocket is recorded under in a capture file. */
const CHAT = "chat";

export const copilotProvider = defineProvider({
  id: "copilot",
  name: "Microsoft Copilot",
  kind: "productivity assistant",
  summary: "Copilot's answer in the requested mode with its citations and outbound links.",
  version: "copilot/2026.11.1",
  citedSources: (answer) => uniqueSources(answer.citations.map((source) => ({ url: source.url, title: source.title }))),
  params: COPILOT_PARAMS,
  countries: { refused: ["JP", "TW"] },
  answer: CopilotAnswerSchema,
  example: {
    scraper: "copilot",
    status: "done",
    job_id: "6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f",
    prompt: "How do solar panels work?",
    country: "US",
    mode: "search",
    result: "Solar panels convert sunlight into electricity using photovoltaic cells.",
    result_markdown: "Solar panels convert sunlight into electricity using photovoltaic cells.",
    citations: [{ title: "How Does Solar Work?", url: "https://www.energy.gov/eere/solar/how-does-solar-work" }],
    links: ["https://www.energy.gov/eere/solar/how-does-solar-work"],
    credits_used: 3,
    elapsed_ms: 8421.5,
    cached: false,
    markdown_url: "https://api.example.com/md/6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f.md",
    served_by: {
      country: "US",
      session: "anonymous",
      attempt: 1,
      hot_page: true,
      model_label: null,
      scraper_version: "copilot/2026.11.1",
      from_cache: false,
    },
    evidence: null,
  },
  origin: { real: () => "https://copilot.microsoft.com" },
  allowedDomains: (origin) => [...new Set([new URL(origin).hostname, ...COPILOT_DOMAINS])],
  async scrape({ pageSession, origin, params, signal, deadline, recorder }) {
    const chat = await captureCopilotExchange({ pageSession, origin, prompt: params.prompt, mode: params.mode, signal, deadline });
    recorder?.exchange(CHAT, chat);
    return { mode: params.mode, ...parseCopilotChat(chat, { origin }) };
  },
  replay: (inputs, params) => ({ mode: params.mode, ...parseCopilotChat(inputs.exchange(CHAT), { origin: inputs.origin }) }),
});
