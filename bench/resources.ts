/**
 * Reuse and resources (issue 14, item 5): session reuse over sequential scrapes (the pool's own launches/reuses
 * counters, GET /admin/pools), and Chromium's memory and open pages before and after many scrapes.
 *
 * Memory is the sum of the proportional set size (Pss, /proc/<pid>/smaps_rollup; RSS where Pss cannot be read) of the
 * Chromium processes this stack started: Pss splits shared pages between processes, so the sum is not inflated by
 * shared libraries the way summed RSS is. Open pages are counted through each browser's DevTools HTTP endpoint
 * (`/json/list`, type "page"; a warm page waiting for the next scrape counts); renderer processes are shown too.
 */
import { readFileSync } from "node:fs";
import { poolFigures, timedScrape, untilPoolIdle } from "./client";
import { row } from "./figures";
import type { LocalBenchStack } from "./stack";

const SCRAPER = "grok";
const REUSE_TARGET = 0.97;
const GROWTH_TARGET = 0.2;

export async function benchReuse(stack: LocalBenchStack, scrapes: number, runId: string): Promise<void> {
  await untilPoolIdle(stack);
  const before = await poolFigures(stack);
  let failures = 0;
  for (let index = 0; index < scrapes; index += 1) {
    if ((await timedScrape(stack, SCRAPER, `bench reuse ${runId} ${index}`)).status !== 200) failures += 1;
  }
  const after = await poolFigures(stack);
  const launches = after.launches - before.launches;
  const reuses = after.reuses - before.reuses;
  const share = reuses / Math.max(1, launches + reuses);
  console.log(`\nReuse over ${scrapes} sequential ${SCRAPER} scrapes (GET /admin/pools counters)`);
  console.log(
    `launches ${launches}, reuses ${reuses}: reuse ${(share * 100).toFixed(1)} % (target ≥ ${REUSE_TARGET * 100} %: ${share >= REUSE_TARGET ? "met" : "missed"}); failures ${failures}`,
  );
}

export interface ChromiumFootprint {
  processes: number;
  renderers: number;
  memoryKiB: number;
  memoryKind: "Pss" | "RSS";
  pages: number | null;
}

export async function chromiumFootprint(stack: LocalBenchStack): Promise<ChromiumFootprint> {
  const pids = stack.chromiumPids();
  let memoryKiB = 0;
  let memoryKind: "Pss" | "RSS" = "Pss";
  let renderers = 0;
  const debuggingPorts = new Set<number>();
  for (const pid of pids) {
    const pss = kibibytesField(`/proc/${pid}/smaps_rollup`, "Pss");
    if (pss === null) memoryKind = "RSS";
    memoryKiB += pss ?? kibibytesField(`/proc/${pid}/status`, "VmRSS") ?? 0;
    const command = readText(`/proc/${pid}/cmdline`).replaceAll("\0", " ");
    if (command.includes("--type=renderer")) renderers += 1;
    const port = devToolsPortOf(command);
    if (port !== null) debuggingPorts.add(port);
  }
  let pages: number | null = debuggingPorts.size === 0 ? null : 0;
  for (const port of debuggingPorts) {
    const count = await openPages(port);
    pages = pages === null || count === null ? null : pages + count;
  }
  return { processes: pids.length, renderers, memoryKiB, memoryKind, pages };
}

export async function benchFootprint(stack: LocalBenchStack, scrapes: number, runId: string): Promise<void> {
  await untilPoolIdle(stack);
  const before = await chromiumFootprint(stack);
  let failures = 0;
  for (let index = 0; index < scrapes; index += 1) {
    if ((await timedScrape(stack, SCRAPER, `bench footprint ${runId} ${index}`)).status !== 200) failures += 1;
  }
  await untilPoolIdle(stack);
  const after = await chromiumFootprint(stack);
  const growth = after.memoryKiB / Math.max(1, before.memoryKiB) - 1;
  console.log(`\nChromium before and after ${scrapes} sequential ${SCRAPER} scrapes (${failures} failed)`);
  const widths = [8, 10, 10, 14, 7] as const;
  console.log(row(["", "processes", "renderers", `${after.memoryKind} MiB`, "pages"], widths));
  for (const [label, figures] of [
    ["before", before],
    ["after", after],
  ] as const) {
    console.log(
      row(
        [
          label,
          String(figures.processes),
          String(figures.renderers),
          (figures.memoryKiB / 1024).toFixed(1),
          figures.pages === null ? "?" : String(figures.pages),
        ],
        widths,
      ),
    );
  }
  const pagesBack = before.pages === null || after.pages === null || after.pages <= before.pages;
  console.log(
    `memory growth ${(growth * 100).toFixed(1)} % (target ≤ ${GROWTH_TARGET * 100} %: ${growth <= GROWTH_TARGET ? "met" : "missed"}); ` +
      `open pages back to baseline: ${before.pages === null ? "not measurable (no DevTools port)" : pagesBack ? "yes" : "no"}`,
  );
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function kibibytesField(path: string, field: string): number | null {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readText(path));
  return match?.[1] === undefined ? null : Number(match[1]);
}

/**
 * The DevTools port of a browser process: given on its command line, or, with `--remote-debugging-port=0` (how the
 * local Browser Rendering starts Chromium), written by Chromium to DevToolsActivePort in its profile folder.
 */
function devToolsPortOf(command: string): number | null {
  if (command.includes("--type=")) return null;
  const given = Number(/--remote-debugging-port=(\d+)/.exec(command)?.[1] ?? Number.NaN);
  if (given > 0) return given;
  const profile = /--user-data-dir=(\S+)/.exec(command)?.[1];
  if (profile === undefined) return null;
  const written = Number(readText(`${profile}/DevToolsActivePort`).split("\n")[0]);
  return Number.isInteger(written) && written > 0 ? written : null;
}

async function openPages(port: number): Promise<number | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/json/list`);
    const targets: unknown = await response.json();
    if (!Array.isArray(targets)) return null;
    return targets.filter((target: unknown) => typeof target === "object" && target !== null && Reflect.get(target, "type") === "page")
      .length;
  } catch {
    return null;
  }
}
