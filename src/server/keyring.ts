import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** HKDF's info for each sub-key */
const SUB_KEYS = {
  enc: 'mpay card encryption v1',
  fp: 'mpay card fingerprint v1',
  hash: 'mpay secret hashing v1',
  request: 'mpay idempotency request v1',
  cardMatch: 'mpay card match v1',
} as const;

/**
 * Server-side secrets, all derived from one master key kept outside the database: in the
 * data directory as `master.key` (mode 0600, created on first use) or, in server mode, from
 * MPAY_MASTER_KEY (base64 of 32 bytes). Sub-keys are separated with HKDF so the card
 * encryption key, the card fingerprint and card match keys, the secret-hashing key and the idempotency request
 * key never coincide.
 */
export class Keyring {
  private readonly master: KeyObject;
  // Each sub-key is derived on its first use and kept as a KeyObject: a command uses one or two
  // of them (an embedded read only the secret-hashing key), and each HMAC and cipher of a request
  // then skips turning a Buffer into a key.
  private readonly keys = new Map<keyof typeof SUB_KEYS, KeyObject>();

  constructor(master: Buffer) {
    if (master.length !== 32) throw new Error('the master key must be 32 bytes');
    this.master = createSecretKey(master);
  }

  private key(name: keyof typeof SUB_KEYS): KeyObject {
    let k = this.keys.get(name);
    if (!k) {
      k = createSecretKey(Buffer.from(hkdfSync('sha256', this.master, Buffer.alloc(0), SUB_KEYS[name], 32)));
      this.keys.set(name, k);
    }
    return k;
  }

  /** Keyed hash of a secret (API secret keys, PINs): HMAC-SHA256, hex. */
  hashSecret(secret: string): string {
    return createHmac('sha256', this.key('hash')).update(secret).digest('hex');
  }

  /** Constant-time comparison of a presented secret with its stored hash. */
  verifySecret(secret: string, storedHash: string): boolean {
    const a = Buffer.from(this.hashSecret(secret), 'hex');
    const b = Buffer.from(storedHash, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /**
   * Keyed hash (HMAC-SHA256, hex) of a request an Idempotency-Key remembers: without the
   * master key nothing of the body can be guessed back from it.
   */
  requestHash(...parts: Array<string | Uint8Array>): string {
    const h = createHmac('sha256', this.key('request'));
    for (const p of parts) h.update(p);
    return h.digest('hex');
  }

  /** Keyed hash (HMAC-SHA256, hex) of a card number: the same number, the same fingerprint. */
  fingerprint(cardNumber: string): string {
    return createHmac('sha256', this.key('fp')).update(cardNumber).digest('hex');
  }

  /**
   * Keyed hash (HMAC-SHA256, hex) of a card's number, holder name and expiry together: the
   * same value only for the very same card data (the parts are JSON-encoded, so no two
   * different cards run together into one input).
   */
  cardKey(card: { number: string; holderName: string; expirationMonth: string; expirationYear: string }): string {
    const parts = [card.number, card.holderName, card.expirationMonth, card.expirationYear];
    return createHmac('sha256', this.key('cardMatch')).update(JSON.stringify(parts)).digest('hex');
  }

  /** AES-256-GCM; output is base64 of iv(12) | tag(16) | ciphertext. */
  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key('enc'), iv);
    const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
    return Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64');
  }

  decrypt(blob: string): string {
    const raw = Buffer.from(blob, 'base64');
    const d = createDecipheriv('aes-256-gcm', this.key('enc'), raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(12, 28));
    const plain = d.update(raw.subarray(28));
    d.final(); // checks the tag (throws on a blob altered or made under another key); GCM holds nothing back
    return plain.toString('utf8');
  }

  static fromEnvOrDir(dataDir: string, env: NodeJS.ProcessEnv = process.env): Keyring {
    const fromEnv = env.MPAY_MASTER_KEY;
    if (fromEnv) {
      const key = Buffer.from(fromEnv, 'base64');
      if (key.length !== 32) throw new Error('MPAY_MASTER_KEY must be the base64 of exactly 32 bytes');
      return new Keyring(key);
    }
    const file = join(dataDir, 'master.key');
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (!existsSync(file)) {
      // written whole under a name of its own, then linked into place: a process starting at the
      // same moment finds either no key or the whole key, never a file still being written, and
      // the first link wins (the others' keys are thrown away)
      const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
      writeFileSync(tmp, randomBytes(32).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
      try {
        linkSync(tmp, file);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      } finally {
        rmSync(tmp, { force: true });
      }
    }
    chmodSync(file, 0o600);
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return new Keyring(key);
  }
}
