/**
 * RFC 6902 JSON Patch (through rfc6902) plus the JSON-pointer access the providers' delta encodings need. Patches are
 * applied to a copy, leniently: an operation that does not apply (missing path, failed test) is counted, not thrown,
 * because a provider stream that skips one update must not lose the whole answer.
 */
import { applyPatch, type Operation } from "rfc6902";
import { Pointer, unescapeToken } from "rfc6902/pointer";

export interface PatchOutcome<T> {
  document: T;
  /** Operations that could not be applied. */
  failed: number;
}

/** Applies `operations` to a deep copy of `document`. A `replace`/`add` at the root path "" replaces the whole document. */
export function applyJsonPatch(document: unknown, operations: readonly unknown[]): PatchOutcome<unknown> {
  let copy: unknown = structuredClone(document);
  let failed = 0;
  for (const raw of operations) {
    const operation = asOperation(raw);
    if (operation === null) {
      failed += 1;
      continue;
    }
    if ((operation.op === "replace" || operation.op === "add") && operation.path === "") {
      copy = structuredClone(operation.value);
      continue;
    }
    const holder = { root: copy };
    // rfc6902 mutates in place; wrapping lets an operation on the root's children work on any JSON value
    const [error] = applyPatch(holder, [{ ...operation, path: `/root${operation.path}`, ...fromOf(operation) }]);
    if (error !== null && error !== undefined) failed += 1;
    copy = holder.root;
  }
  return { document: copy, failed };
}

function fromOf(operation: Operation): { from?: string } {
  return "from" in operation && typeof operation.from === "string" ? { from: `/root${operation.from}` } : {};
}

const OPS = new Set(["add", "remove", "replace", "move", "copy", "test"]);

/** Narrows an unknown value to an RFC 6902 operation, or null. */
export function asOperation(value: unknown): Operation | null {
  if (typeof value !== "object" || value === null) return null;
  const op: unknown = Reflect.get(value, "op");
  const path: unknown = Reflect.get(value, "path");
  if (typeof op !== "string" || !OPS.has(op) || typeof path !== "string") return null;
  if (path !== "" && !path.startsWith("/")) return null;
  switch (op) {
    case "add":
    case "replace":
    case "test":
      return { op, path, value: Reflect.get(value, "value") };
    case "remove":
      return { op, path };
    case "move":
    case "copy": {
      const from: unknown = Reflect.get(value, "from");
      return typeof from === "string" ? { op, path, from } : null;
    }
    default:
      return null;
  }
}

/** The value at a JSON pointer ("" = the document itself), or undefined. */
export function getAtPointer(document: unknown, pointer: string): unknown {
  if (pointer === "") return document;
  try {
    return Pointer.fromJSON(pointer).get(document);
  } catch {
    return undefined;
  }
}

/** The tokens of a JSON pointer, unescaped (`~1` → `/`, `~0` → `~`). */
export function pointerTokens(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer.slice(1).split("/").map(unescapeToken);
}
