/**
 * The playground's request as code: curl, Python (standard library: urllib.request) and JavaScript (global fetch),
 * synchronous or as a job. Every snippet reads the key from `API_KEY` and this API's address from `API_URL`, the names
 * the README and the docs use, so a shell set up once runs any of them. The key itself is never in a snippet: only its
 * display prefix is known (keys are stored as hashes), and it is named in a comment so the reader knows which key is
 * meant. Every value is written as a literal of its language, so a prompt with quotes, `$`, backslashes or new lines
 * is sent exactly as typed. Evidence chosen in the form is asked with the `X-Evidence` header, and its URLs are printed.
 */
import { EVIDENCE_HEADER, type EvidenceKind, kindsToText } from "../../evidence/evidence-kinds";
import { shellQuote } from "../../util/shell-quote";
import type { RunMode } from "./playground-input";

interface SnippetRequest {
  /** The API's public origin, e.g. https://api.example.com: the default of `API_URL`. */
  baseUrl: string;
  scraper: string;
  /** Query parameters in order (the prompt first; defaults left out). */
  query: ReadonlyArray<readonly [string, string]>;
  /** The masked key, e.g. `sk_AbCdEfG…`, or a placeholder when no key is chosen. */
  maskedKey: string;
  run: RunMode;
  /** The evidence kinds the request asks for with `X-Evidence`; none (or absent): no header, the account's default. */
  evidence?: readonly EvidenceKind[];
}

export interface Snippets {
  curl: string;
  python: string;
  javascript: string;
}

const KEY_PLACEHOLDER = "YOUR_API_KEY";

export function maskedKey(displayPrefix: string | null): string {
  return displayPrefix === null ? KEY_PLACEHOLDER : `${displayPrefix}…`;
}

/** A JSON string is a valid string literal in both Python 3 and JavaScript (the escapes \" \\ \n \uXXXX mean the same). */
function literal(text: string): string {
  return JSON.stringify(text);
}

/** Which key the snippet means, for its comment: the chosen key's first characters, or any key when none is chosen. */
function keyNote(request: SnippetRequest): string {
  return request.maskedKey === KEY_PLACEHOLDER
    ? "your API key (shown once, when it was created)"
    : `your full key ${request.maskedKey} (shown once, when it was created)`;
}

/** The `X-Evidence` header's value, or null when the request sends none. */
function evidenceHeader(request: SnippetRequest): string | null {
  return request.evidence === undefined || request.evidence.length === 0 ? null : kindsToText(request.evidence);
}

/** The request's headers as a Python dict (`{"X-API-Key": API_KEY}`) or a JavaScript object (`{ "X-API-Key": API_KEY }`). */
function headersLiteral(request: SnippetRequest, language: "python" | "javascript"): string {
  const evidence = evidenceHeader(request);
  const entries = ['"X-API-Key": API_KEY', ...(evidence === null ? [] : [`${literal(EVIDENCE_HEADER)}: ${literal(evidence)}`])].join(", ");
  return language === "python" ? `{${entries}}` : `{ ${entries} }`;
}

function curlSnippet(request: SnippetRequest): string {
  const evidence = evidenceHeader(request);
  const path = request.run === "job" ? `/scrapers/${request.scraper}/jobs` : `/scrapers/${request.scraper}`;
  // -G puts the --data-urlencode pairs in the query string (encoded by curl); -X POST then makes it a POST for a job.
  const lines = [
    `curl -fsS -G${request.run === "job" ? " -X POST" : ""} "$API_URL${path}"`,
    '  -H "X-API-Key: $API_KEY"',
    ...(evidence === null ? [] : [`  -H ${shellQuote(`${EVIDENCE_HEADER}: ${evidence}`)}`]),
    ...request.query.map(([name, value]) => `  --data-urlencode ${shellQuote(`${name}=${value}`)}`),
  ];
  const setup = [`# Once per shell, with ${keyNote(request)}:`, `#   export API_KEY='…' API_URL=${shellQuote(request.baseUrl)}`];
  const command = lines.join(" \\\n");
  if (request.run === "sync") return [...setup, command].join("\n");
  return [
    ...setup,
    command,
    "",
    '# Then poll every 3 seconds until "status" is done or failed (no key needed):',
    'curl -fsS "$API_URL/jobs/JOB_ID"',
  ].join("\n");
}

/** The imports, the key and the address, and the encoded query, shared by the Python snippets. */
function pythonPreamble(request: SnippetRequest, modules: readonly string[]): string[] {
  const entries = request.query.map(([name, value]) => `    ${literal(name)}: ${literal(value)},`);
  return [
    ...modules.map((module) => `import ${module}`),
    "",
    `API_KEY = os.environ["API_KEY"]  # ${keyNote(request)}`,
    `API_URL = os.environ.get("API_URL", ${literal(request.baseUrl)})`,
    "",
    "params = urllib.parse.urlencode({",
    ...entries,
    "})",
  ];
}

/** An error answer's status and `detail`, instead of a traceback. */
const PYTHON_HTTP_ERROR = [
  "except urllib.error.HTTPError as error:",
  `    raise SystemExit(f"{error.code}: {json.load(error)['detail']}")`,
];

function pythonSnippet(request: SnippetRequest): string {
  if (request.run === "sync") {
    return [
      ...pythonPreamble(request, ["json", "os", "urllib.error", "urllib.parse", "urllib.request"]),
      `request = urllib.request.Request(f"{API_URL}/scrapers/${request.scraper}?{params}", headers=${headersLiteral(request, "python")})`,
      "try:",
      "    # Longer than the scrape's own timeout (300 s by default).",
      "    with urllib.request.urlopen(request, timeout=620) as response:",
      "        answer = json.load(response)",
      ...PYTHON_HTTP_ERROR,
      'print(answer["result"])',
      ...(evidenceHeader(request) === null ? [] : ['print(json.dumps(answer["evidence"], indent=2))  # the evidence URLs, valid 24 hours']),
    ].join("\n");
  }
  return [
    ...pythonPreamble(request, ["json", "os", "time", "urllib.error", "urllib.parse", "urllib.request"]),
    "submit = urllib.request.Request(",
    `    f"{API_URL}/scrapers/${request.scraper}/jobs?{params}", method="POST", headers=${headersLiteral(request, "python")}`,
    ")",
    "try:",
    "    with urllib.request.urlopen(submit, timeout=30) as response:",
    '        job_id = json.load(response)["job_id"]',
    ...PYTHON_HTTP_ERROR,
    "",
    "while True:",
    "    time.sleep(3)",
    '    with urllib.request.urlopen(f"{API_URL}/jobs/{job_id}", timeout=30) as response:',
    "        job = json.load(response)",
    '    if job["status"] != "pending":',
    "        break",
    'print(job["result"]["result"] if job["status"] == "done" else job["error"])',
    ...(evidenceHeader(request) === null
      ? []
      : ['print(json.dumps(job["result"]["evidence"] if job["status"] == "done" else job.get("evidence"), indent=2))']),
  ].join("\n");
}

/** The key and the address, and the query, shared by the JavaScript snippets. */
function javascriptPreamble(request: SnippetRequest): string[] {
  const entries = request.query.map(([name, value]) => `  ${literal(name)}: ${literal(value)},`);
  return [
    `const API_KEY = process.env.API_KEY; // ${keyNote(request)}`,
    `const API_URL = process.env.API_URL ?? ${literal(request.baseUrl)};`,
    "const params = new URLSearchParams({",
    ...entries,
    "});",
  ];
}

function javascriptSnippet(request: SnippetRequest): string {
  if (request.run === "sync") {
    return [
      ...javascriptPreamble(request),
      "",
      `const response = await fetch(\`\${API_URL}/scrapers/${request.scraper}?\${params}\`, {`,
      `  headers: ${headersLiteral(request, "javascript")},`,
      "});",
      "const answer = await response.json();",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the snippet is JavaScript source with template literals
      "if (!response.ok) throw new Error(`${response.status}: ${answer.detail}`);",
      "console.log(answer.result);",
      ...(evidenceHeader(request) === null
        ? []
        : ["console.log(JSON.stringify(answer.evidence, null, 2)); // the evidence URLs, valid 24 hours"]),
    ].join("\n");
  }
  return [
    ...javascriptPreamble(request),
    "",
    `const submitted = await fetch(\`\${API_URL}/scrapers/${request.scraper}/jobs?\${params}\`, {`,
    '  method: "POST",',
    `  headers: ${headersLiteral(request, "javascript")},`,
    "});",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the snippet is JavaScript source with template literals
    "if (!submitted.ok) throw new Error(`${submitted.status}: ${(await submitted.json()).detail}`);",
    "const { job_id: jobId } = await submitted.json();",
    "",
    "let job;",
    "do {",
    "  await new Promise((resolve) => setTimeout(resolve, 3000));",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the snippet is JavaScript source with template literals
    "  job = await (await fetch(`${API_URL}/jobs/${jobId}`)).json();",
    '} while (job.status === "pending");',
    'console.log(job.status === "done" ? job.result.result : job.error);',
    ...(evidenceHeader(request) === null
      ? []
      : ['console.log(JSON.stringify(job.status === "done" ? job.result.evidence : job.evidence, null, 2));']),
  ].join("\n");
}

export function buildSnippets(request: SnippetRequest): Snippets {
  return { curl: curlSnippet(request), python: pythonSnippet(request), javascript: javascriptSnippet(request) };
}
