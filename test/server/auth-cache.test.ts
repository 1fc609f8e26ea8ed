import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { basic, testEnv, type TestEnv } from '../helpers/server.js';
import { backend } from '../helpers/backend.js';
import { chargeBody } from '../helpers/money.js';

/**
 * The app remembers API keys it has read while the store reports no commit since (SQLite's
 * data_version and its own commits). These tests check that nothing a commit changes is
 * served from memory: not a revocation, not allowed_ips, not the merchant's clock, whether
 * the change comes through this app or from another connection (another process).
 */
let env: TestEnv;
beforeEach(async () => {
  env = await testEnv();
});
afterEach(async () => env.close());

const get = (auth: string) => env.rt.app.request('/v1/merchant', { headers: { authorization: auth } });

describe.runIf(backend === 'sqlite')('API keys remembered between commits (SQLite)', () => {
  it('the change token moves with every commit, on this connection and on another one', async () => {
    const db = env.rt.deps.db;
    // (while a group commit is open the token is the committed state's: waiting for an idle turn
    // here makes the test about commits only)
    const idle = () => new Promise((r) => setImmediate(r));
    await idle();
    const t0 = db.changeToken!();
    expect(t0).toBeDefined();
    expect(db.changeToken!()).toBe(t0);
    await db.run("UPDATE merchants SET name = 'A' WHERE id = ?", [env.merchant.merchant_id]);
    await idle();
    const t1 = db.changeToken!();
    expect(t1).not.toBe(t0);
    const other = new Database(join(env.dir, 'mpay.db'));
    other.prepare("UPDATE merchants SET name = 'B' WHERE id = ?").run(env.merchant.merchant_id);
    other.close();
    expect(db.changeToken!()).not.toBe(t1);
  });

  it('the token is read from the WAL index (-shm) and moves with every commit of another process, across checkpoints and WAL restarts', async () => {
    const db = env.rt.deps.db;
    await new Promise((r) => setImmediate(r));
    let last = db.changeToken!();
    // one pread of the -shm header, not a read transaction per call (PRAGMA data_version)
    expect(last).toMatch(/^w/);
    const other = new Database(join(env.dir, 'mpay.db'));
    const rename = other.prepare('UPDATE merchants SET name = ? WHERE id = ?');
    for (let i = 0; i < 60; i++) {
      rename.run(`N${i}`, env.merchant.merchant_id);
      // the WAL is checkpointed and truncated now and then: the next commit restarts it from frame 1
      if (i % 10 === 9) other.pragma('wal_checkpoint(TRUNCATE)');
      const t = db.changeToken!();
      expect(t).not.toBe(last);
      expect(db.changeToken!()).toBe(t);
      last = t;
    }
    other.close();
  });

  it('a request that arrives while a group commit is open is authenticated and answered without waiting for its COMMIT', async () => {
    const auth = env.auth();
    expect((await get(auth)).status).toBe(200);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const open = env.rt.deps.db.tx(async (q) => {
      await q.run("UPDATE merchants SET name = 'Renamed' WHERE id = ?", [env.merchant.merchant_id]);
      await gate; // (tests only: a transaction must not wait on anything but the store)
    });
    await new Promise((r) => setTimeout(r, 10));
    // the key is read again (the first read was at another token) and the merchant answered,
    // from the committed state, while the group holds its write
    const during = get(auth);
    const res = await Promise.race([during, new Promise((r) => setTimeout(() => r('waiting'), 1000))]);
    expect(res).not.toBe('waiting');
    expect((res as Response).status).toBe(200);
    expect(((await (res as Response).json()) as { data: { name: string } }).data.name).not.toBe('Renamed');
    release();
    await open;
    expect(((await (await get(auth)).json()) as { data: { name: string } }).data.name).toBe('Renamed');
  });

  it('a key deactivated by another process is refused on the very next request', async () => {
    const auth = env.auth();
    expect((await get(auth)).status).toBe(200);
    expect((await get(auth)).status).toBe(200); // now from memory
    const other = new Database(join(env.dir, 'mpay.db'));
    other.prepare('UPDATE api_keys SET is_active = 0 WHERE public_key = ?').run(env.merchant.public_key);
    other.close();
    expect((await get(auth)).status).toBe(403);
  });

  it('allowed_ips set by another process applies at once', async () => {
    const auth = env.auth();
    expect((await get(auth)).status).toBe(200);
    const other = new Database(join(env.dir, 'mpay.db'));
    other.prepare('UPDATE api_keys SET allowed_ips = ? WHERE public_key = ?').run(JSON.stringify(['203.0.113.7']), env.merchant.public_key);
    other.close();
    expect((await get(auth)).status).toBe(403);
  });

  it('a key revoked through the API is refused at once, the secret of a remembered key is still checked', async () => {
    const k = (await env.call('POST', '/v1/api-keys', { name: 'temp' })).body.data;
    const auth = basic(k.public_key, k.secret_key);
    expect((await get(auth)).status).toBe(200);
    expect((await get(auth)).status).toBe(200);
    expect((await get(basic(k.public_key, k.secret_key.slice(0, -1) + (k.secret_key.endsWith('a') ? 'b' : 'a')))).status).toBe(401);
    expect((await get(basic(k.public_key, k.secret_key + 'x'))).status).toBe(401);
    expect((await get(basic(k.public_key, ''))).status).toBe(403); // public key alone on a secret route
    expect((await env.call('DELETE', `/v1/api-keys/${k.id}`)).status).toBe(200);
    expect((await get(auth)).status).toBe(403);
  });

  it('the sandbox clock moved by another process is the clock of the next request', async () => {
    const pix = () => env.call('POST', '/v1/charges', chargeBody(1000, { payment_method: 'pix' }));
    const before = (await pix()).body.data;
    const other = new Database(join(env.dir, 'mpay.db'));
    other.prepare('UPDATE merchants SET clock_offset_ms = clock_offset_ms + ? WHERE id = ?').run(86_400_000, env.merchant.merchant_id);
    other.close();
    const after = (await pix()).body.data;
    expect(Date.parse(after.created_at) - Date.parse(before.created_at)).toBe(86_400_000);
  });
});
