/**
 * Everything in the suite that drives Chromium, in lanes (scripts/run-tests.sh runs it after the browser-free levels):
 * each `e2e` file in its own `vitest run --project e2e` process, the dashboard's `browser` project, and the restart
 * test. `CHROMIUM_LANES` tasks run at once (default: twice the cores, 4 on two cores).
 *
 * Why a process per e2e file: each has its own replicas, webhook receiver and workerd, so two files running at once can
 * never trip each other's replica faults (the fault switches are per replica server) or share a browser pool. Why
 * lanes pay on two cores: most of an e2e file's time is waiting (a caller's `timeout`, the bounded absence wait before
 * drift, job back-offs, replica pacing), not computing (docs/architecture.md, "Tests").
 *
 * Longest first, so that no long task starts last and becomes the suite's tail: the order comes from the seconds each
 * task took in a measured run (below); a task not in the table counts as 30 s. The table decides order only, never an
 * outcome.
 *
 * Each task leaves `.cache/lanes/<task>.status` (its exit status) and, for vitest tasks, `<task>.json` (vitest's JSON
 * report); scripts/run-tests.sh adds them to the summary line. A task's output is printed once it ends: one line when
 * it passed, in full when it failed.
 *
 * Usage: tsx scripts/run-chromium-lanes.ts [extra vitest arguments for every vitest task]
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";

const root = fileURLToPath(new URL("..", import.meta.url));
const reportDirectory = join(root, ".cache", "lanes");
const UNMEASURED_TASK_SECONDS = 30;

/** Seconds per task in a 4-lane run of `npm test` (fresh clone of c0fed8b, 2 cores); only the start order depends on them. */
const MEASURED_SECONDS: Readonly<Record<string, number>> = {
  "e2e-gemini": 329,
  "e2e-amazon_rufus": 287,
  "e2e-google_ai_mode": 206,
  "e2e-grok": 170,
  "e2e-copilot": 156,
  browser: 128,
  "e2e-chatgpt": 125,
  "e2e-perplexity": 118,
  "e2e-fair-sharing": 93,
  "e2e-canaries": 89,
  "e2e-provider-accounts": 81,
  "e2e-pool": 79,
  "e2e-chatgpt-hot-page": 79,
  restart: 78,
  "e2e-jobs": 66,
  // measured alone (56 s), not in a 4-lane run
  "e2e-evidence": 56,
  "e2e-hot-pages": 54,
  "e2e-page-work": 52,
  "e2e-capture-replay": 43,
  "e2e-client": 41,
  "e2e-crash": 39,
  "e2e-hostile-prompts": 35,
  "e2e-capture": 23,
  "e2e-coalescing": 20,
  "e2e-hot-page-hook": 19,
  "e2e-batches": 18,
};

interface Task {
  name: string;
  command: string;
  arguments: string[];
  /** Where vitest writes its JSON report; null for a task that only has an exit status. */
  report: string | null;
}

function laneCount(): number {
  const configured = process.env.CHROMIUM_LANES;
  if (configured === undefined || configured === "") return 2 * availableParallelism();
  if (!/^[1-9][0-9]*$/.test(configured)) throw new Error(`CHROMIUM_LANES must be a positive integer, got "${configured}"`);
  return Number(configured);
}

function testFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

function vitestTask(name: string, vitestArguments: string[], extraArguments: readonly string[]): Task {
  const report = join(reportDirectory, `${name}.json`);
  return {
    name,
    command: join(root, "node_modules", ".bin", "vitest"),
    arguments: ["run", ...vitestArguments, "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...extraArguments],
    report,
  };
}

function tasks(extraArguments: readonly string[]): Task[] {
  const e2e = testFiles(join(root, "test", "e2e")).map((file) =>
    vitestTask(`e2e-${basename(file, ".test.ts")}`, ["--project", "e2e", relative(root, file)], extraArguments),
  );
  const browser = vitestTask("browser", ["--project", "browser"], extraArguments);
  // The whole local stack killed with jobs pending and started again (docs/reliability.md): its own stack and ports.
  const restart: Task = {
    name: "restart",
    command: join(root, "node_modules", ".bin", "tsx"),
    arguments: ["test/restart/restart-test.ts"],
    report: null,
  };
  const expected = (task: Task) => MEASURED_SECONDS[task.name] ?? UNMEASURED_TASK_SECONDS;
  return [...e2e, browser, restart].sort((a, b) => expected(b) - expected(a));
}

interface TaskRun {
  status: number;
  seconds: number;
  output: string;
}

function run(task: Task): Promise<TaskRun> {
  const startedAt = Date.now();
  const child = spawn(task.command, task.arguments, { cwd: root, env: process.env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  return new Promise((resolve) => {
    child.on("close", (code) => {
      const status = code ?? 1;
      writeFileSync(join(reportDirectory, `${task.name}.status`), `${status}\n`);
      resolve({ status, seconds: (Date.now() - startedAt) / 1000, output });
    });
  });
}

/** vitest's "Tests  N passed (N)" line without colours, or the task's last line. */
function summaryOf(output: string): string {
  const plain = stripVTControlCharacters(output);
  const tests = /^\s*Tests\s+(.*)$/m.exec(plain)?.[1]?.trim();
  if (tests !== undefined) return tests;
  return plain.trim().split("\n").at(-1) ?? "";
}

async function main(): Promise<number> {
  const lanes = laneCount();
  const queue = tasks(process.argv.slice(2));
  rmSync(reportDirectory, { recursive: true, force: true });
  mkdirSync(reportDirectory, { recursive: true });
  const startedAt = Date.now();
  console.log(`Chromium tasks: ${queue.length} in ${lanes} lanes`);
  let failedTasks = 0;
  const lane = async () => {
    for (let task = queue.shift(); task !== undefined; task = queue.shift()) {
      const result = await run(task);
      const line = `${task.name}: ${summaryOf(result.output)} in ${result.seconds.toFixed(0)} s`;
      if (result.status === 0) {
        console.log(`✓ ${line}`);
      } else {
        failedTasks += 1;
        console.log(`✗ ${line}\n${result.output}`);
      }
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  console.log(`Chromium tasks: ${((Date.now() - startedAt) / 1000).toFixed(0)} s wall, ${failedTasks} failed`);
  return failedTasks === 0 ? 0 : 1;
}

process.exitCode = await main();
