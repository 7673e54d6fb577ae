/**
 * Encryption at rest of provider sessions: AES-256-GCM (Web Crypto) with a key derived by HKDF-SHA-256 from the
 * `PROVIDER_ACCOUNTS_KEY` secret, a fresh 96-bit IV per write, and the row's identity (id, provider, marketplace) as
 * additional authenticated data, so a ciphertext copied into another row does not decrypt. A database dump alone
 * reveals no session.
 */
import { ServiceError } from "../errors";
import { base64ToBytes, bytesToBase64 } from "../util/base64";

/** The secret's name (`wrangler secret put PROVIDER_ACCOUNTS_KEY`; locally `.dev.vars`, written by `npm start`). */
export const PROVIDER_ACCOUNTS_KEY = "PROVIDER_ACCOUNTS_KEY";
/** A shorter secret is refused: HKDF cannot add entropy that the secret does not have. */
const MIN_SECRET_CHARS = 32;
const HKDF_SALT = "ai-answer-scraper/provider-accounts";
const HKDF_INFO = "session-state/aes-256-gcm/v1";
const IV_BYTES = 12;

/** 503: the operator API for provider accounts needs the secret; scrapes simply run without accounts then. */
export class ProviderAccountsNotConfiguredError extends ServiceError {
  constructor() {
    super(
      503,
      `Provider accounts are not configured: set the ${PROVIDER_ACCOUNTS_KEY} secret (at least ${MIN_SECRET_CHARS} characters, e.g. \`openssl rand -base64 32\`).`,
      { code: "not_configured" },
    );
  }
}

/** The configured secret, or null when it is unset or too short to be one (the feature is then off). */
export function providerAccountsSecret(env: Env): string | null {
  const configured: unknown = Reflect.get(env, PROVIDER_ACCOUNTS_KEY);
  if (typeof configured !== "string") return null;
  const secret = configured.trim();
  return secret.length >= MIN_SECRET_CHARS ? secret : null;
}

interface SealedSession {
  ciphertext: string;
  iv: string;
}

export class SessionCipher {
  private constructor(private readonly key: CryptoKey) {}

  static async fromSecret(secret: string): Promise<SessionCipher> {
    const encoder = new TextEncoder();
    const material = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
    const key = await crypto.subtle.deriveKey(
      { name: "HKDF", hash: "SHA-256", salt: encoder.encode(HKDF_SALT), info: encoder.encode(HKDF_INFO) },
      material,
      { name: "AES-GCM", length: 256 },
      false,
      ["encrypt", "decrypt"],
    );
    return new SessionCipher(key);
  }

  async seal(plaintext: string, associatedData: string): Promise<SealedSession> {
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const sealed = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(associatedData) },
      this.key,
      new TextEncoder().encode(plaintext),
    );
    return { ciphertext: bytesToBase64(new Uint8Array(sealed)), iv: bytesToBase64(iv) };
  }

  /** The plaintext; throws when the key, the IV or the associated data do not match (or the ciphertext was altered). */
  async open(sealed: SealedSession, associatedData: string): Promise<string> {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: base64ToBytes(sealed.iv), additionalData: new TextEncoder().encode(associatedData) },
      this.key,
      base64ToBytes(sealed.ciphertext),
    );
    return new TextDecoder().decode(plain);
  }
}

/** Derived keys of this isolate by secret: every scrape asks, and the derivation gives the same key each time. */
const ciphers = new Map<string, Promise<SessionCipher>>();

/** The cipher of `env`, or null when provider accounts are not configured. */
export async function sessionCipherOf(env: Env): Promise<SessionCipher | null> {
  const secret = providerAccountsSecret(env);
  if (secret === null) return null;
  let cipher = ciphers.get(secret);
  if (cipher === undefined) {
    cipher = SessionCipher.fromSecret(secret);
    // a rotated secret replaces the old key rather than accumulating
    ciphers.clear();
    ciphers.set(secret, cipher);
  }
  return cipher;
}
