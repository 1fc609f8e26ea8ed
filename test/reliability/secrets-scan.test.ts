/**
 * Secrets at rest: runs `mpay server start` on a temp data directory and does what
 * leaves secrets behind when it goes wrong — API keys and webhook endpoints created (and
 * replayed) with an Idempotency-Key, cards tokenized with an Idempotency-Key, charges with one,
 * wrong secrets presented — then scans every file of the data directory (database, WAL and
 * shared memory while the server runs and after it stops, uploads if any) and the server's
 * logs for: every `sk_…` and `whsec_…` it handed out (and anything shaped like one), every card
 * number and CVV used, and the SHA-256, SHA-1 and MD5 (hex in either case, base64 and base64url) of each card body sent, of the request as `METHOD path\nbody`, of each card number
 * and of number + CVV — the derivations an unkeyed idempotency hash would have left (hex
 * and base64 runs of every file are matched against them).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { luhnValid } from '../../src/domain/luhn.js';
import { chargeBody } from '../helpers/money.js';
import { basic } from '../helpers/server.js';
import { report, startScanServer } from './helpers.js';

const CARDS = 200;

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

/** Every text form a digest could be written in: hex (either case), base64, base64url. */
function digestForms(data: string): string[] {
  return ['sha256', 'sha1', 'md5'].flatMap((alg) => {
    const d = createHash(alg).update(data).digest();
    return [d.toString('hex'), d.toString('base64'), d.toString('base64url')];
  });
}

/** The runs of a file that could be a written digest: hex (lower-cased) and base64 words. */
function digestCandidates(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/[0-9a-fA-F]{32,}/g)) {
    const h = m[0].toLowerCase();
    for (const len of [32, 40, 64]) for (let i = 0; i + len <= h.length; i++) out.add(h.slice(i, i + len));
  }
  // base64 words (a ciphertext is one long word; a digest would be a short one, maybe run
  // together with the next column's text in a SQLite record)
  for (const m of text.matchAll(/[A-Za-z0-9+/_-]{22,}={0,2}/g)) {
    const w = m[0];
    if (w.length > 200) continue;
    for (const len of [22, 24, 27, 28, 43, 44]) for (let i = 0; i + len <= w.length; i++) out.add(w.slice(i, i + len));
  }
  return out;
}

it(`keys, webhook secrets, ${CARDS} cards and their hashes → none at rest in the database, WAL, uploads or logs`, async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'mpay-secrets-'));
  const { dataDir, m, server, url, stderr, exited } = await startScanServer(tmp, 'Loja Segredos');
  const secretAuth = basic(m.public_key, m.secret_key);
  const post = async (path: string, body: string, headers: Record<string, string>) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    return { status: res.status, json: (await res.json()) as any };
  };
  try {
    const secrets: string[] = [m.secret_key];
    // API keys and webhook endpoints, each created with an Idempotency-Key and replayed
    for (let i = 0; i < 5; i++) {
      for (let again = 0; again < 2; again++) {
        const k = await post('/v1/api-keys', JSON.stringify({ name: `key ${i}` }), { authorization: secretAuth, 'idempotency-key': `key-${i}` });
        expect(k.status).toBe(201);
        if (again === 0) secrets.push(k.json.data.secret_key);
        else expect(k.json.data.secret_key).toBeUndefined();
      }
      for (let again = 0; again < 2; again++) {
        const w = await post('/v1/postbacks/endpoints', JSON.stringify({ url: `https://hooks.example.com/mpay/${i}`, events: ['payment_link.paid'] }), {
          authorization: secretAuth,
          'idempotency-key': `hook-${i}`,
        });
        expect(w.status, JSON.stringify(w.json)).toBe(201);
        if (again === 0) secrets.push(w.json.data.secret);
        else expect(w.json.data.secret).toBeUndefined();
      }
    }
    expect(secrets.filter((s) => /^sk_test_/.test(s))).toHaveLength(6);
    expect(secrets.filter((s) => /^whsec_/.test(s))).toHaveLength(5);

    // cards, tokenized with an Idempotency-Key (publishable key) and again with the secret key
    const cards = Array.from({ length: CARDS }, (_, i) => ({
      number: withCheckDigit(`5${String(20_000_000_000_000 + i * 7_919 + Math.floor(Math.random() * 7_000)).padStart(14, '0')}`),
      cvv: String(100 + Math.floor(Math.random() * 900)),
      holder: `Cliente ${i}`,
    }));
    const bodies: string[] = [];
    const tokens: string[] = [];
    for (const c of cards) bodies.push(JSON.stringify({ card: { number: c.number, holderName: c.holder, expirationMonth: '12', expirationYear: '2031', cvv: c.cvv } }));
    const queue = [...bodies.keys()];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
          const auth = i % 2 ? basic(m.public_key, '') : secretAuth;
          const t = await post('/v1/tokens', bodies[i]!, { authorization: auth, 'idempotency-key': `tok-${i}` });
          expect(t.status, JSON.stringify(t.json)).toBe(201);
          tokens.push(t.json.data.token);
        }
      }),
    );
    for (const [i, token] of tokens.slice(0, 20).entries()) {
      const c = await post('/v1/charges', JSON.stringify(chargeBody(1000, { payment_method: 'credit_card', payment_details: { token, installments: 1 } })), {
        authorization: secretAuth,
        'idempotency-key': `charge-${i}`,
      });
      expect(c.status).toBe(201);
    }
    // wrong and right secrets presented: neither may reach the logs
    for (let i = 0; i < 5; i++) expect((await fetch(`${url}/v1/merchant`, { headers: { authorization: basic(m.public_key, `${m.secret_key}x`) } })).status).toBe(401);

    const live = filesUnder(dataDir).map((f) => ({ name: `${f.slice(dataDir.length + 1)} (server running)`, data: readFileSync(f) }));
    const walSeen = live.some((f) => f.name.startsWith('mpay.db-wal') && f.data.length > 0);
    server.kill('SIGTERM');
    await exited;
    const stopped = filesUnder(dataDir).map((f) => ({ name: f.slice(dataDir.length + 1), data: readFileSync(f) }));
    const blobs = [...live, ...stopped, { name: 'server stderr', data: Buffer.from(stderr.text) }];

    const needles: { what: string; bytes: Buffer }[] = [];
    for (const s of secrets) needles.push({ what: `secret ${s.slice(0, 9)}…`, bytes: Buffer.from(s) }, { what: `secret ${s.slice(0, 9)}… (UTF-16)`, bytes: Buffer.from(s, 'utf16le') });
    const digests = new Map<string, string>();
    for (const [i, c] of cards.entries()) {
      needles.push({ what: `card number ${c.number.slice(0, 6)}…`, bytes: Buffer.from(c.number) });
      const derived = [bodies[i]!, `POST /v1/tokens\n${bodies[i]}`, `POST /v1/tokens ${bodies[i]}`, c.number, `${c.number}${c.cvv}`, `${c.number}:${c.cvv}`];
      for (const d of derived) for (const f of digestForms(d)) digests.set(/^[0-9a-f]+$/.test(f) ? f : f.replace(/=+$/, ''), `a hash of card ${i}'s data`);
    }
    const scanBlobs = (list: { name: string; data: Buffer }[]): string[] => {
      const findings: string[] = [];
      for (const { name, data } of list) {
      for (const n of needles) if (data.includes(n.bytes)) findings.push(`${name}: ${n.what}`);
      const text = data.toString('latin1');
      for (const cand of digestCandidates(text)) {
        const hit = digests.get(cand) ?? digests.get(cand.replace(/=+$/, ''));
        if (hit) findings.push(`${name}: ${hit}`);
      }
      if (/sk_(test|live)_[A-Za-z0-9_-]{20,}/.test(text)) findings.push(`${name}: something shaped like a secret key`);
      if (/whsec_[A-Za-z0-9+/=_-]{16,}/.test(text)) findings.push(`${name}: something shaped like a webhook secret`);
      if (/cvv"?\s*[:=]\s*"?\d{3,4}/i.test(text)) findings.push(`${name}: a CVV field`);
      }
      return findings;
    };
    // the scan finds what it looks for: a pre-fix idempotency row (unkeyed SHA-256 of the
    // token request, then the state column) and a stored creation answer with its secret
    const planted = `x${createHash('sha256').update(`POST /v1/tokens\n${bodies[0]}`).digest('hex')}done{"secret_key":"${secrets[1]}"}`;
    expect(scanBlobs([{ name: 'planted', data: Buffer.from(planted) }])).toEqual([
      `planted: secret ${secrets[1]!.slice(0, 9)}…`,
      "planted: a hash of card 0's data",
      'planted: something shaped like a secret key',
    ]);
    const findings = scanBlobs(blobs);
    const scannedBytes = blobs.reduce((a, b) => a + b.data.length, 0);
    report(
      `secrets scan ${secrets.length} secrets (6 sk_, 5 whsec_), ${CARDS} cards (${digests.size} sha256/sha1/md5 digests of card bodies and numbers) in ${blobs.length - 1} files (WAL ${walSeen ? 'scanned live' : 'absent'}) + logs, ${(scannedBytes / 1e6).toFixed(1)} MB → ${findings.length} findings`,
    );
    if (findings.length) console.log(findings.slice(0, 20));
    expect(findings).toEqual([]);
  } finally {
    server.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
  }
}, 180_000);
