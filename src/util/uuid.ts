/** Whether `text` has the shape of a UUID (any version, either case): ids of jobs and batches are `crypto.randomUUID()`. */
export function isUuid(text: string): boolean {
  return UUID_PATTERN.test(text);
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
