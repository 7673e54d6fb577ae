/**
 * Runs code written for customers as they would run it: a shell snippet under bash (curl), Python with python3
 * (standard library only), JavaScript with node, each from a file in `dir`, with nothing of the test's environment but
 * PATH and the variables given. Used by the browser tests that execute the guides' examples and /docs's code samples
 * against the running stack; and the account key they run with, created through the operator API like a customer's.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

export type SnippetLanguage = "sh" | "python" | "js";

const run = promisify(execFile);
const FILE_OF_LANGUAGE: Readonly<Record<SnippetLanguage, string>> = { sh: "snippet.sh", python: "snippet.py", js: "snippet.mjs" };

export interface SnippetRun {
  /** The working folder; the snippet is written into it. */
  dir: string;
  /** The snippet's whole environment besides PATH. */
  env: Record<string, string>;
  timeoutMs: number;
}

/** The snippet's standard output; a non-zero exit rejects with its stderr (execFile's error). */
export async function runSnippet(language: SnippetLanguage, code: string, options: SnippetRun): Promise<string> {
  const file = join(options.dir, FILE_OF_LANGUAGE[language]);
  writeFileSync(file, `${code}\n`);
  const command = { sh: "bash", python: "python3", js: process.execPath }[language];
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...options.env };
  const { stdout } = await run(command, [file], { cwd: options.dir, env, timeout: options.timeoutMs });
  return stdout;
}

/** A new account with one API key, made with the operator API of the stack at `baseUrl`. */
export async function createAccountKey(baseUrl: string, adminToken: string, name: string): Promise<string> {
  const headers = { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" };
  const body = JSON.stringify({ name });
  const account = (await (await fetch(`${baseUrl}/admin/accounts`, { method: "POST", headers, body })).json()) as { account_id: string };
  const key = (await (await fetch(`${baseUrl}/admin/accounts/${account.account_id}/keys`, { method: "POST", headers, body })).json()) as {
    api_key: string;
  };
  return key.api_key;
}
