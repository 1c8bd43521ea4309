/**
 * Operators' TOTP secrets encrypted at rest with a key the operator provides
 * (`SVC_SECRET_KEY`, `createCloud({ secretKey })`): AES-256-GCM through
 * `crypto.subtle`, a fresh 96-bit IV per secret, the operator's id as
 * additional data (a sealed secret copied to another operator's row does not
 * open). The storage wraps the operator methods, so every caller sees the
 * base32 secret and the database holds `aesgcm1:IV:CIPHERTEXT`. Secrets stored
 * as they are (before a key was set) are still read, and sealed when the
 * storage opens with a key.
 *
 * @module
 */
import type { OperatorRecord, OperatorStorage } from "./operator_storage.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** The prefix of a sealed secret. */
export const SEALED_PREFIX = "aesgcm1:";

/** Seals and opens TOTP secrets. */
export interface SecretBox {
  /** Encrypts a secret for an operator. */
  seal(secret: string, operatorId: string): Promise<string>;
  /** Decrypts a sealed secret; a secret stored as it is comes back unchanged. */
  open(stored: string, operatorId: string): Promise<string>;
}

/**
 * The box of a key: 32 bytes in base64 (`openssl rand -base64 32`).
 *
 * @param secretKey The key.
 * @returns The box.
 * @throws {Error} When the key is not 32 bytes of base64.
 *
 * @example
 * ```ts
 * import { secretBox } from "./sealed_totp_secrets.ts";
 * const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
 * const box = await secretBox(key);
 * const sealed = await box.seal("JBSWY3DPEHPK3PXP", "op_1");
 * await box.open(sealed, "op_1"); // "JBSWY3DPEHPK3PXP"
 * ```
 */
export async function secretBox(secretKey: string): Promise<SecretBox> {
  let raw: Uint8Array<ArrayBuffer>;
  try {
    raw = Uint8Array.from(atob(secretKey.trim()), (c) => c.charCodeAt(0));
  } catch {
    raw = new Uint8Array();
  }
  if (raw.length !== 32) {
    throw new Error(
      "The secret key (SVC_SECRET_KEY) must be 32 bytes in base64: make one with `openssl rand -base64 32`.",
    );
  }
  const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
  const data = (operatorId: string) => new TextEncoder().encode(operatorId);
  return {
    async seal(secret, operatorId) {
      const iv = PLATFORM.randomBytes(12);
      const params = { name: "AES-GCM", iv, additionalData: data(operatorId) };
      const sealed = new Uint8Array(await crypto.subtle.encrypt(params, key, new TextEncoder().encode(secret)));
      return `${SEALED_PREFIX}${base64(iv)}:${base64(sealed)}`;
    },
    async open(stored, operatorId) {
      if (!stored.startsWith(SEALED_PREFIX)) return stored;
      const [iv, sealed] = stored.slice(SEALED_PREFIX.length).split(":");
      const params = { name: "AES-GCM", iv: unbase64(iv), additionalData: data(operatorId) };
      return new TextDecoder().decode(await crypto.subtle.decrypt(params, key, unbase64(sealed ?? "")));
    },
  };
}

/**
 * The operator methods of a storage with TOTP secrets sealed on the way in and opened on the way out.
 *
 * @param inner The storage's own operator methods.
 * @param box The key's box.
 * @returns The same methods, sealing.
 */
export function sealedOperators(inner: OperatorStorage, box: SecretBox): OperatorStorage {
  const opened = async (op: OperatorRecord): Promise<OperatorRecord> =>
    op.totpSecret === null ? op : { ...op, totpSecret: await box.open(op.totpSecret, op.id) };
  const sealed = async (op: OperatorRecord): Promise<OperatorRecord> =>
    op.totpSecret === null ? op : { ...op, totpSecret: await box.seal(op.totpSecret, op.id) };
  return {
    ...inner,
    createOperator: async (operator, audit) => inner.createOperator(await sealed(operator), audit),
    findOperator: async (id) => {
      const op = await inner.findOperator(id);
      return op && await opened(op);
    },
    findOperatorByEmail: async (email) => {
      const op = await inner.findOperatorByEmail(email);
      return op && await opened(op);
    },
    listOperators: async () => Promise.all((await inner.listOperators()).map(opened)),
    findSession: async (tokenHash) => {
      const found = await inner.findSession(tokenHash);
      return found && { session: found.session, operator: await opened(found.operator) };
    },
    updateOperator: async (id, changes, at, audit) => {
      const totpSecret = typeof changes.totpSecret === "string"
        ? await box.seal(changes.totpSecret, id)
        : changes.totpSecret;
      return inner.updateOperator(id, { ...changes, totpSecret }, at, audit);
    },
    setupFirstOperator: async (tokenHash, operator, at, audit) =>
      inner.setupFirstOperator(tokenHash, await sealed(operator), at, audit),
  };
}

/**
 * Seals the TOTP secrets still stored as they are (written before a key was set).
 *
 * @param inner The storage's own operator methods (they show what is stored).
 * @param box The key's box.
 * @returns How many were sealed.
 */
export async function sealStoredSecrets(inner: OperatorStorage, box: SecretBox): Promise<number> {
  let count = 0;
  for (const op of await inner.listOperators()) {
    if (op.totpSecret === null || op.totpSecret.startsWith(SEALED_PREFIX)) continue;
    const totpSecret = await box.seal(op.totpSecret, op.id);
    if (await inner.updateOperator(op.id, { totpSecret }, op.updatedAt)) count += 1;
  }
  return count;
}

function base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function unbase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
