/** A POSIX shell word: single quotes keep everything literal; a single quote itself is closed, escaped and reopened. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
