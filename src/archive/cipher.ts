/**
 * At-rest encryption of archived messages (ARCHIVE_ENCRYPTION_KEY): AES-256-GCM, a fresh
 * 96-bit IV per message, stored as `v1:` + base64(iv ‖ tag ‖ ciphertext). The key never
 * leaves this process's memory: not logged, not in errors, not in the database.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

const PREFIX = 'v1:'

/** The key from its configured form: 64 hex characters or base64 of 32 bytes. Throws naming the variable, never the value. */
export function parseArchiveKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64')
  if (key.length !== 32) throw new Error('ARCHIVE_ENCRYPTION_KEY must be 32 bytes: 64 hex characters or base64 (e.g. openssl rand -hex 32)')
  return key
}

export function encryptArchived(key: Buffer, plain: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')
}

/** Throws when the key is not the one the row was written with (GCM's tag check). */
export function decryptArchived(key: Buffer, stored: string): string {
  if (!stored.startsWith(PREFIX)) throw new Error('archived message is not in the v1 encrypted form')
  const all = Buffer.from(stored.slice(PREFIX.length), 'base64')
  const decipher = createDecipheriv('aes-256-gcm', key, all.subarray(0, 12))
  decipher.setAuthTag(all.subarray(12, 28))
  return Buffer.concat([decipher.update(all.subarray(28)), decipher.final()]).toString('utf8')
}
