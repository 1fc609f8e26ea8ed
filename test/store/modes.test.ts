/**
 * Files that hold personal data are 0600 whatever the directory they land in:
 * the SQLite database, its WAL and shared-memory files, uploads and the master key.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../../src/server/runtime.js';
import { createMerchant } from '../../src/server/services/merchants.js';
import { basic } from '../helpers/server.js';
import { pjBody } from '../helpers/onboarding.js';
import { openSqlite } from '../../src/store/sqlite.js';

let base: string;
let dataDir: string;
let oldUmask: number;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'mpay-modes-'));
  dataDir = join(base, 'data');
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755); // a data directory someone else made, readable by all
  oldUmask = process.umask(0o022); // the usual umask: files would be 0644
});
afterEach(() => {
  process.umask(oldUmask);
  rmSync(base, { recursive: true, force: true });
});

const mode = (p: string) => statSync(p).mode & 0o777;

describe('file modes in a 0755 data directory (SQLite, uploads on disk)', () => {
  it('mpay.db, its -wal and -shm, master.key and every upload are 0600', async () => {
    let rt: Runtime | undefined;
    try {
      rt = await openRuntime({ dataDir, rateLimit: null });
      const m = await rt.deps.db.tx((q) => createMerchant(q, rt!.deps, 'Loja', new Date()));
      const auth = basic(m.public_key, m.secret_key);
      const sub = await rt.app.request('/v1/submerchants', { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(pjBody()) });
      expect(sub.status).toBe(201);
      const subId = (await sub.json()).data.id;
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR'), Buffer.alloc(20)]);
      const fd = new FormData();
      fd.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'rg.png');
      const up = await rt.app.request(`/v1/submerchants/${subId}/upload`, { method: 'POST', body: fd, headers: { authorization: auth } });
      expect(up.status).toBe(201);

      const files = ['mpay.db', 'mpay.db-wal', 'mpay.db-shm', 'master.key'];
      for (const f of files) expect(mode(join(dataDir, f)).toString(8), f).toBe('600');
      const uploads = readdirSync(join(dataDir, 'uploads'));
      expect(uploads.length).toBeGreaterThan(0);
      for (const f of uploads) expect(mode(join(dataDir, 'uploads', f)).toString(8), f).toBe('600');
    } finally {
      await rt?.close();
    }
  });

  it('a database file made 0644 earlier is made 0600 when it is opened', async () => {
    const file = join(dataDir, 'mpay.db');
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    const db = await openSqlite(file);
    try {
      await db.run('CREATE TABLE IF NOT EXISTS t (x INTEGER)');
      await db.run('INSERT INTO t (x) VALUES (1)');
      for (const f of ['mpay.db', 'mpay.db-wal', 'mpay.db-shm']) expect(mode(join(dataDir, f)).toString(8), f).toBe('600');
    } finally {
      await db.close();
    }
  });
});
