import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` + the
 * base64 of 32 random bytes; the signature is `v1,` + base64(HMAC-SHA256(key, "{id}.{ts}.{body}"))
 * where key is the base64-decoded part after `whsec_` and ts is Unix seconds.
 */
export const SECRET_PREFIX = 'whsec_';

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(b64, 'base64');
}

export function sign(secret: string, msgId: string, timestampSec: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${msgId}.${timestampSec}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The three webhook-* headers for one message. Several secrets (a rotation's overlap: the new
 * one first) give one space-separated `v1,…` entry each, as Standard Webhooks specifies; a
 * verifier accepts the message if any entry matches its secret.
 */
export function webhookHeaders(secrets: string | readonly string[], msgId: string, timestampSec: number, body: string): Record<string, string> {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': list.map((s) => sign(s, msgId, timestampSec, body)).join(' '),
  };
}
