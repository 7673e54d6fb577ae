/**
 * Whole-number query parameters (`timeout`, `limit`), read strictly: plain decimal digits and nothing else. `Number()`
 * and `z.coerce.number()` also read `0x3c`, `6e2`, `60.0`, ` 60`, `+60`, `1e1` and `Infinity`, so one value could be
 * written many ways (and pass filters, caches and logs that compare the text); only `60` means 60 here. Batch items and
 * MCP arguments given as JSON numbers are turned into their text first, so `60` and `"60"` are the same there too.
 */
import { z } from "@hono/zod-openapi";

const DIGITS_ONLY = /^[0-9]+$/;

/** The value of a string of decimal digits, or undefined for anything else (signs, spaces, dots, exponents, hex). */
function parseDigits(raw: string): number | undefined {
  return DIGITS_ONLY.test(raw) ? Number(raw) : undefined;
}

interface IntegerQueryParamOptions {
  name: string;
  min: number;
  max: number;
  defaultValue: number;
  description: string;
  /** What the number counts, for the message: `a number of seconds` reads "must be a number of seconds from 10 to 600". */
  noun?: string;
}

/** The 400 message (after `"<name>: "`): the accepted range and the accepted form, with an example. */
function integerParamMessage({ min, max, defaultValue, noun = "an integer" }: IntegerQueryParamOptions): string {
  return `must be ${noun} from ${min} to ${max}, written in digits only (such as ${defaultValue})`;
}

/** An optional query parameter holding a whole number from `min` to `max`, `defaultValue` when absent. */
export function integerQueryParam(options: IntegerQueryParamOptions) {
  const { name, min, max, defaultValue, description } = options;
  const message = integerParamMessage(options);
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return defaultValue;
      const value = parseDigits(raw);
      if (value === undefined || value < min || value > max) {
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return value;
    })
    .openapi({ param: { name, in: "query" }, type: "integer", default: defaultValue, minimum: min, maximum: max, description });
}
