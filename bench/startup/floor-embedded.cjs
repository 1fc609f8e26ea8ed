// The floor under an embedded read: what `mpay keys list -o json` must do at the least, written
// by hand with mpay's own parts and nothing else (no command line, no schemas, no pipeline):
// read the profile, open the sandbox's SQLite file (better-sqlite3, WAL), derive the secret's
// hashing key from master.key and check the secret (node:crypto), list the merchant's keys, print
// them. bench/startup/run.mjs times it beside mpay, to show what mpay itself adds.
'use strict';
const { readFileSync, writeSync } = require('node:fs');
const { join } = require('node:path');
const { createHmac, createSecretKey, hkdfSync, timingSafeEqual } = require('node:crypto');
const Database = require('better-sqlite3');

const profile = JSON.parse(readFileSync(join(process.env.MPAY_CONFIG_DIR, 'config.json'), 'utf8')).profiles.default;
const db = new Database(join(profile.data_dir, 'mpay.db'));
db.pragma('journal_mode = WAL');
db.pragma('busy_timeout = 5000');
const master = Buffer.from(readFileSync(join(profile.data_dir, 'master.key'), 'utf8').trim(), 'base64');
const hashKey = createSecretKey(Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'mpay secret hashing v1', 32)));
const key = db.prepare('SELECT merchant_id, secret_hash FROM api_keys WHERE public_key = ? AND is_active = 1').get(profile.public_key);
const hash = createHmac('sha256', hashKey).update(profile.secret_key).digest();
if (!key || !timingSafeEqual(hash, Buffer.from(key.secret_hash, 'hex'))) throw new Error('the profile has no valid key');
const keys = db
  .prepare('SELECT id, name, public_key, is_active, created_at, revoked_at FROM api_keys WHERE merchant_id = ? ORDER BY created_at, id LIMIT 20')
  .all(key.merchant_id);
db.close();
writeSync(1, `${JSON.stringify(keys.map((k) => ({ ...k, is_active: k.is_active === 1 })), null, 2)}\n`);
