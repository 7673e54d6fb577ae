/**
 * CPU time of the bench's own stack while a load runs (bench/cache-path.ts): at 20 connections on 2 cores, latency is
 * mostly queueing for the CPU, so the CPU a request costs is the figure that says what a change bought, whatever else
 * the machine runs meanwhile. Read from /proc (Linux) for the processes this bench process started: wrangler's Node
 * process and its workerd processes (the Worker with its D1, KV and Durable Object simulators in one, wrangler's proxy
 * in another); the Chromium of the local Browser Rendering is left out (a cached request never uses it).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { descendantsOf } from "../scripts/local-stack";

/** Clock ticks per second of /proc/<pid>/stat's utime and stime. */
const TICKS_PER_SECOND = (() => {
  const result = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
  const ticks = Number(result.stdout.trim());
  return result.status === 0 && Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
})();

interface ProcessCpu {
  command: string;
  cpuMs: number;
}

function processCpu(pid: number): ProcessCpu | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // the fields after the command name (which may hold spaces) start after its closing parenthesis
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
    return Number.isFinite(ticks) ? { command, cpuMs: (ticks * 1000) / TICKS_PER_SECOND } : null;
  } catch {
    return null;
  }
}

export type CpuSnapshot = Map<number, ProcessCpu>;

/** CPU used so far by each process of the stack (wrangler and workerd), by pid. */
export function stackCpu(): CpuSnapshot {
  const snapshot: CpuSnapshot = new Map();
  for (const pid of descendantsOf(process.pid)) {
    const cpu = processCpu(pid);
    if (cpu !== null && /wrangler|workerd/.test(cpu.command) && !/chrom/i.test(cpu.command)) snapshot.set(pid, cpu);
  }
  return snapshot;
}

export interface CpuPerRequest {
  /** Every stack process together, ms of CPU per request. */
  stackMs: number;
  /** The busiest process alone (the Worker's workerd: one event loop, the bottleneck), ms of CPU per request. */
  busiestMs: number;
}

export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number): CpuPerRequest {
  let total = 0;
  let busiest = 0;
  for (const [pid, cpu] of after) {
    const used = cpu.cpuMs - (before.get(pid)?.cpuMs ?? cpu.cpuMs);
    total += used;
    busiest = Math.max(busiest, used);
  }
  return requests > 0 ? { stackMs: total / requests, busiestMs: busiest / requests } : { stackMs: Number.NaN, busiestMs: Number.NaN };
}
