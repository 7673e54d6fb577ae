/** The queue message of a job (src/jobs/job-message.ts) and how its attempts are counted (src/jobs/job-attempts.ts). */
import { describe, expect, it } from "vitest";
import { attemptNumber, hasAttemptsLeft, MAX_ATTEMPTS } from "../../src/jobs/job-attempts";
import { jobMessageAfterWaiting, newJobMessage, readJobDelivery } from "../../src/jobs/job-message";

const jobId = "6f1c2a8e-3b4d-4c5e-8f90-1a2b3c4d5e6f";

describe("the job message", () => {
  it("a new job's message carries its id only", () => {
    expect(newJobMessage(jobId)).toEqual({ jobId });
  });

  it("a first delivery of a new message is the job's first delivery", () => {
    expect(readJobDelivery({ body: { jobId }, attempts: 1 })).toEqual({ jobId, delivery: 1, turnsGivenAway: 0 });
  });

  it("a message sent again after waiting counts the deliveries before it", () => {
    const body = { jobId, earlierDeliveries: 3, turnsGivenAway: 2 };
    expect(readJobDelivery({ body, attempts: 2 })).toEqual({ jobId, delivery: 5, turnsGivenAway: 2 });
  });

  it("is no job message without a string id; counts that are no positive integers read as none", () => {
    expect(readJobDelivery({ body: null, attempts: 1 })).toBeNull();
    expect(readJobDelivery({ body: "job", attempts: 1 })).toBeNull();
    expect(readJobDelivery({ body: { jobId: 7 }, attempts: 1 })).toBeNull();
    const body = { jobId, earlierDeliveries: -2, turnsGivenAway: 1.5 };
    expect(readJobDelivery({ body, attempts: 1 })).toEqual({ jobId, delivery: 1, turnsGivenAway: 0 });
  });

  it("a delivery that waited for its turn is not counted in the message that puts the job back in line", () => {
    const waited = { jobId, delivery: 3, turnsGivenAway: 4 };
    expect(jobMessageAfterWaiting(waited, { gaveWay: true })).toEqual({ jobId, earlierDeliveries: 2, turnsGivenAway: 5 });
    expect(jobMessageAfterWaiting(waited, { gaveWay: false })).toEqual({ jobId, earlierDeliveries: 2, turnsGivenAway: 4 });
    // Read back on its first delivery, the job is at its third delivery again.
    const again = readJobDelivery({ body: jobMessageAfterWaiting(waited, { gaveWay: false }), attempts: 1 });
    expect(again?.delivery).toBe(3);
  });
});

describe("a job's attempts", () => {
  it("are at most four", () => {
    expect(MAX_ATTEMPTS).toBe(4);
    expect([1, 2, 3, 4].map(hasAttemptsLeft)).toEqual([true, true, true, false]);
  });

  it("are numbered by the larger of the job's deliveries and the attempts its record started", () => {
    // Recovery sent a new message after three attempts: its first delivery runs the fourth.
    expect(attemptNumber(1, 4)).toBe(4);
    // A message delivered a fourth time, once finding another delivery holding the job (three attempts started): the
    // fourth, since the queue delivers it no more.
    expect(attemptNumber(4, 3)).toBe(4);
  });
});
