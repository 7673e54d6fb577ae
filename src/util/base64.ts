/**
 * Base64 in both alphabets, on bytes. The Workers runtime has `btoa`/`atob` (strings of byte-sized characters) but no
 * `Buffer`, so every conversion goes through here instead of a loop of its own.
 */

/** Standard base64 with `=` padding (capture files, sealed sessions, Standard Webhooks secrets). */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The bytes of standard base64; throws (`InvalidCharacterError`) when `text` is not base64. */
export function base64ToBytes(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

/** Base64url without padding (tokens, cookie signatures, cursors: text that travels in URLs and cookies). */
export function bytesToBase64Url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

const BASE64URL_ALPHABET_ONLY = /^[A-Za-z0-9_-]*$/;

/**
 * The bytes of base64url text, padding optional; null when it is not base64. By default it reads as leniently as
 * `atob`: the standard alphabet's `+` `/`, `=` padding and ASCII white space pass too (a link or cursor someone
 * re-encoded still reads). `urlAlphabetOnly` refuses all of those, for a signature, where one value must have one
 * spelling.
 */
export function base64UrlToBytes(text: string, options: { urlAlphabetOnly?: boolean } = {}): Uint8Array | null {
  if (options.urlAlphabetOnly === true && !BASE64URL_ALPHABET_ONLY.test(text)) return null;
  const standard = text.replaceAll("-", "+").replaceAll("_", "/");
  try {
    return base64ToBytes(standard + "=".repeat((4 - (standard.length % 4)) % 4));
  } catch {
    return null;
  }
}
