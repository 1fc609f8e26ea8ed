/**
 * Tokenizes 1,000 distinct cards through `mpay server start` over HTTP (stderr logs captured,
 * with a charge on some tokens so the charge path runs too), then scans every file of the data
 * directory (database, WAL and shared memory while the server runs, and again after it stops)
 * and the server's logs for: any card number in clear (ASCII, or as UTF-16), the string "cvv"
 * in any case, and any CVV value serialized as a field (`"cvv":"1234"`, `cvv=1234`). The
 * encrypted card blobs are decrypted with the data directory's key and must not contain the
 * CVV either: the CVV is validated and never written, not even encrypted.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { Keyring } from '../../src/server/keyring.js';
import { luhnValid } from '../../src/domain/luhn.js';
import { chargeBody } from '../helpers/money.js';
import { basic } from '../helpers/server.js';
import { report, startScanServer } from './helpers.js';

const CARDS = 1000;

/** A Luhn-valid 16-digit Visa number from a 15-digit prefix. */
function withCheckDigit(prefix15: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(prefix15 + d)) return prefix15 + d;
  throw new Error('unreachable');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

interface Finding {
  file: string;
  what: string;
}

function scan(blobs: { name: string; data: Buffer }[], cards: { number: string; cvv: string }[]): Finding[] {
  const found: Finding[] = [];
  for (const { name, data } of blobs) {
    const latin = data.toString('latin1');
    // "cvv" as a word (a name or key), not three letters inside base64 ciphertext or a token
    if (/(^|[^A-Za-z0-9+/_-])cvv([^A-Za-z0-9+/=_-]|$)/i.test(latin)) found.push({ file: name, what: 'the word "cvv"' });
    const utf16 = data.toString('utf16le');
    for (const c of cards) {
      if (latin.includes(c.number)) found.push({ file: name, what: `card number ${c.number.slice(0, 6)}…` });
      if (utf16.includes(c.number)) found.push({ file: name, what: `card number ${c.number.slice(0, 6)}… (UTF-16)` });
    }
    const fields = /cvv"?\s*[:=]\s*"?\d{3,4}/gi;
    if (fields.test(latin)) found.push({ file: name, what: 'a CVV field' });
  }
  return found;
}

it(`${CARDS} tokenized cards → 0 CVVs and 0 clear card numbers in the data directory, WAL and logs`, async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'mpay-scan-'));
  const { dataDir, m, server, url, stderr, exited } = await startScanServer(tmp, 'Loja Scan');
  try {
    const cards = Array.from({ length: CARDS }, (_, i) => ({
      number: withCheckDigit(`4${String(10_000_000_000_000 + i * 7_919 + Math.floor(Math.random() * 7_000)).padStart(14, '0')}`),
      // 3 digits: never equal to the expiry year the scan also finds in the blob
      cvv: String(100 + Math.floor(Math.random() * 900)),
      holder: `Cliente ${i}`,
    }));
    expect(new Set(cards.map((c) => c.number)).size).toBe(CARDS);
    const tokens: string[] = [];
    let failures = 0;
    const queue = [...cards];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let c = queue.shift(); c; c = queue.shift()) {
          const res = await fetch(`${url}/v1/tokens`, {
            method: 'POST',
            headers: { authorization: basic(m.public_key, ''), 'content-type': 'application/json' },
            body: JSON.stringify({ card: { number: c.number, holderName: c.holder, expirationMonth: '12', expirationYear: '2031', cvv: c.cvv } }),
          });
          const json = (await res.json()) as any;
          if (res.status !== 201) failures++;
          else tokens.push(json.data.token);
        }
      }),
    );
    // a charge on some of the tokens, with an Idempotency-Key (its response is stored)
    for (const token of tokens.slice(0, 20)) {
      const res = await fetch(`${url}/v1/charges`, {
        method: 'POST',
        headers: { authorization: basic(m.public_key, m.secret_key), 'content-type': 'application/json', 'idempotency-key': `scan-${token}` },
        body: JSON.stringify(chargeBody(1000, { payment_method: 'credit_card', payment_details: { token, installments: 1 } })),
      });
      expect(res.status).toBe(201);
    }
    // a bad request carrying a card: its error must not echo the number or the CVV either
    const bad = await fetch(`${url}/v1/tokens`, {
      method: 'POST',
      headers: { authorization: basic(m.public_key, ''), 'content-type': 'application/json' },
      body: JSON.stringify({ card: { number: cards[0]!.number, holderName: 'X', expirationMonth: '13', expirationYear: '2031', cvv: cards[0]!.cvv }, extra: 1 }),
    });
    const badText = await bad.text();
    expect(bad.status).toBe(400);

    const live = filesUnder(dataDir).map((f) => ({ name: `${f.slice(dataDir.length + 1)} (server running)`, data: readFileSync(f) }));
    const walSeen = live.some((f) => f.name.startsWith('mpay.db-wal') && f.data.length > 0);
    server.kill('SIGTERM');
    await exited;
    const stopped = filesUnder(dataDir).map((f) => ({ name: f.slice(dataDir.length + 1), data: readFileSync(f) }));
    const findings = scan([...live, ...stopped, { name: 'server stderr', data: Buffer.from(stderr.text) }, { name: 'error response', data: Buffer.from(badText) }], cards);

    // the encrypted blobs decrypt to the card without its CVV
    const keyring = Keyring.fromEnvOrDir(dataDir);
    const db = new Database(join(dataDir, 'mpay.db'), { readonly: true });
    const blobs = db.prepare('SELECT encrypted FROM card_tokens').all() as { encrypted: string }[];
    db.close();
    let cvvInBlobs = 0;
    const byNumber = new Map(cards.map((c) => [c.number, c.cvv]));
    for (const b of blobs) {
      const card = JSON.parse(keyring.decrypt(b.encrypted)) as Record<string, string>;
      const cvv = byNumber.get(card.number!);
      if (Object.keys(card).some((k) => /cvv|cvc|security/i.test(k)) || Object.values(card).some((v) => v === cvv)) cvvInBlobs++;
    }
    const scannedBytes = [...live, ...stopped].reduce((a, f) => a + f.data.length, 0) + stderr.text.length;
    const pans = findings.filter((f) => f.what.startsWith('card number')).length;
    const cvvs = findings.length - pans + cvvInBlobs;
    report(
      `card scan ${tokens.length} cards tokenized (${failures} refused), ${live.length + stopped.length} files (WAL ${walSeen ? 'scanned live' : 'absent'}) + ${stderr.text.split('\n').length - 1} log lines, ${(scannedBytes / 1e6).toFixed(1)} MB → ${cvvs} CVVs, ${pans} clear card numbers`,
    );
    if (findings.length) console.log(findings.slice(0, 20));
    expect(failures).toBe(0);
    expect(blobs).toHaveLength(CARDS);
    expect(findings).toEqual([]);
    expect(cvvInBlobs).toBe(0);
  } finally {
    server.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
  }
}, 180_000);
