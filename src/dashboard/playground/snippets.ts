/**
 * The playground's request as code: curl, Python (requests) and JavaScript (fetch), synchronous or as a job. The key
 * is masked: only its display prefix is known (keys are stored as hashes), so the snippets carry `sk_AbCdEfG…` and
 * say where the full key goes. Every value is written as a literal of its language, so a prompt with quotes, `$`,
 * backslashes or new lines is sent exactly as typed.
 */
import type { RunMode } from "./playground-input";

interface SnippetRequest {
  /** The API's public origin, e.g. https://api.example.com. */
  baseUrl: string;
  scraper: string;
  /** Query parameters in order (the prompt first; defaults left out). */
  query: ReadonlyArray<readonly [string, string]>;
  /** The masked key, e.g. `sk_AbCdEfG…`, or a placeholder when no key is chosen. */
  maskedKey: string;
  run: RunMode;
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

/** A POSIX shell word: single quotes keep everything literal; a single quote itself is closed, escaped and reopened. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A JSON string is a valid string literal in both Python 3 and JavaScript (the escapes \" \\ \n \uXXXX mean the same). */
function literal(text: string): string {
  return JSON.stringify(text);
}

function curlSnippet(request: SnippetRequest): string {
  const path = request.run === "job" ? `/scrapers/${request.scraper}/jobs` : `/scrapers/${request.scraper}`;
  // -G puts the --data-urlencode pairs in the query string (encoded by curl); -X POST then makes it a POST for a job.
  const lines = [
    `curl -fsS -G${request.run === "job" ? " -X POST" : ""} ${shellQuote(`${request.baseUrl}${path}`)}`,
    `  -H ${shellQuote(`X-API-Key: ${request.maskedKey}`)}`,
    ...request.query.map(([name, value]) => `  --data-urlencode ${shellQuote(`${name}=${value}`)}`),
  ];
  const command = lines.join(" \\\n");
  const keyNote = `# Replace ${request.maskedKey} with your full key (it is shown once, when the key is created).`;
  if (request.run === "sync") return `${keyNote}\n${command}`;
  return [
    keyNote,
    command,
    "",
    '# Then poll every 3 seconds until "status" is done or failed (no key needed):',
    `curl -fsS ${shellQuote(`${request.baseUrl}/jobs/JOB_ID`)}`,
  ].join("\n");
}

function pythonParams(request: SnippetRequest, indent: string): string {
  const entries = request.query.map(([name, value]) => `${indent}    ${literal(name)}: ${literal(value)},`);
  return [`${indent}params={`, ...entries, `${indent}},`].join("\n");
}

function pythonSnippet(request: SnippetRequest): string {
  const keyLine = `API_KEY = ${literal(request.maskedKey)}  # your full key (shown once, when it was created)`;
  if (request.run === "sync") {
    return [
      "import requests",
      "",
      keyLine,
      "",
      "response = requests.get(",
      `    ${literal(`${request.baseUrl}/scrapers/${request.scraper}`)},`,
      pythonParams(request, "    "),
      '    headers={"X-API-Key": API_KEY},',
      "    timeout=620,  # longer than the scrape's own timeout (300 s by default)",
      ")",
      "response.raise_for_status()",
      "answer = response.json()",
      'print(answer["result"])',
    ].join("\n");
  }
  return [
    "import time",
    "",
    "import requests",
    "",
    keyLine,
    `BASE_URL = ${literal(request.baseUrl)}`,
    "",
    "submitted = requests.post(",
    `    f"{BASE_URL}/scrapers/${request.scraper}/jobs",`,
    pythonParams(request, "    "),
    '    headers={"X-API-Key": API_KEY},',
    "    timeout=30,",
    ")",
    "submitted.raise_for_status()",
    'job_id = submitted.json()["job_id"]',
    "",
    "while True:",
    '    job = requests.get(f"{BASE_URL}/jobs/{job_id}", timeout=30).json()',
    '    if job["status"] != "pending":',
    "        break",
    "    time.sleep(3)",
    'print(job["result"]["result"] if job["status"] == "done" else job["error"])',
  ].join("\n");
}

function javascriptParams(request: SnippetRequest): string {
  const entries = request.query.map(([name, value]) => `  ${literal(name)}: ${literal(value)},`);
  return ["const params = new URLSearchParams({", ...entries, "});"].join("\n");
}

function javascriptSnippet(request: SnippetRequest): string {
  const keyLine = `const API_KEY = ${literal(request.maskedKey)}; // your full key (shown once, when it was created)`;
  if (request.run === "sync") {
    return [
      keyLine,
      javascriptParams(request),
      "",
      `const response = await fetch(${literal(`${request.baseUrl}/scrapers/${request.scraper}?`)} + params, {`,
      '  headers: { "X-API-Key": API_KEY },',
      "});",
      "const answer = await response.json();",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the snippet is JavaScript source with template literals
      "if (!response.ok) throw new Error(`${response.status}: ${answer.detail}`);",
      "console.log(answer.result);",
    ].join("\n");
  }
  return [
    keyLine,
    `const BASE_URL = ${literal(request.baseUrl)};`,
    javascriptParams(request),
    "",
    `const submitted = await fetch(\`\${BASE_URL}/scrapers/${request.scraper}/jobs?\${params}\`, {`,
    '  method: "POST",',
    '  headers: { "X-API-Key": API_KEY },',
    "});",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the snippet is JavaScript source with template literals
    "if (!submitted.ok) throw new Error(`${submitted.status}: ${(await submitted.json()).detail}`);",
    "const { job_id: jobId } = await submitted.json();",
    "",
    "let job;",
    "do {",
    "  await new Promise((resolve) => setTimeout(resolve, 3000));",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the snippet is JavaScript source with template literals
    "  job = await (await fetch(`${BASE_URL}/jobs/${jobId}`)).json();",
    '} while (job.status === "pending");',
    'console.log(job.status === "done" ? job.result.result : job.error);',
  ].join("\n");
}

export function buildSnippets(request: SnippetRequest): Snippets {
  return { curl: curlSnippet(request), python: pythonSnippet(request), javascript: javascriptSnippet(request) };
}
