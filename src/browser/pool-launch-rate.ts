/**
 * How many browsers a country's pool started in the last minute (Browser Rendering limits new browsers per minute):
 * a sliding window of launch times, persisted by the pool. Plain arithmetic over the times it is given.
 */

const WINDOW_MS = 60_000;

export class LaunchRate {
  private times: number[];

  constructor(times: readonly number[] = []) {
    this.times = [...times];
  }

  /** The launch times still in the window (what the pool persists). */
  recorded(): readonly number[] {
    return this.times;
  }

  /** Whether one more launch fits `perMinute` at `now`; forgets the launches that left the window. */
  hasRoom(perMinute: number, now: number): boolean {
    const minuteAgo = now - WINDOW_MS;
    this.times = this.times.filter((time) => time > minuteAgo);
    return this.times.length < perMinute;
  }

  /** Seconds (at least 1) until the oldest launch in the window leaves it; a minute when none is recorded. */
  secondsUntilRoom(now: number): number {
    const oldest = this.times[0];
    return oldest === undefined ? 60 : Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000));
  }

  record(now: number): void {
    this.times.push(now);
  }

  /** The latest launch started nothing (the budget refused it): it does not count against the window. */
  forgetLatest(): void {
    this.times.pop();
  }
}
