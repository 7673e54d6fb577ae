/**
 * Progress of `npm start` while it prepares the stack: each step is announced when it begins, reminded of every few
 * seconds while it lasts (a wrangler command takes 5–20 s on a busy two-core machine, and silence that long reads as a
 * hang), and closed with the time it took.
 */

export interface ProgressOptions {
  /** How often a step that is still running says so. */
  reminderEveryMs: number;
  write: (line: string) => void;
}

const DEFAULT_OPTIONS: ProgressOptions = { reminderEveryMs: 3_000, write: (line) => console.log(line) };

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Runs `work` as the step `label` (no trailing punctuation: "Applying D1 migrations"). */
export async function step<T>(label: string, work: () => Promise<T>, options: ProgressOptions = DEFAULT_OPTIONS): Promise<T> {
  const startedAt = Date.now();
  options.write(`${label}…`);
  const reminder = setInterval(() => {
    options.write(`  … still ${label.charAt(0).toLowerCase()}${label.slice(1)} (${Math.round((Date.now() - startedAt) / 1000)} s)`);
  }, options.reminderEveryMs);
  try {
    const result = await work();
    options.write(`${label}: done in ${seconds(Date.now() - startedAt)}`);
    return result;
  } finally {
    clearInterval(reminder);
  }
}
