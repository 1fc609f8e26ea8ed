/** Both FileStore implementations, the database one on the current backend. */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { DbFileStore, DirFileStore, defaultFileStore, type FileStore } from '../../src/store/files.js';
import { backend, testStore, type TestStore } from '../helpers/backend.js';

let store: TestStore;
let db: Db;
let dir: string;
beforeEach(async () => {
  store = await testStore();
  db = await store.open();
  dir = mkdtempSync(join(tmpdir(), 'mpay-files-'));
});
afterEach(async () => {
  await db.close();
  await store.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const kinds: Array<[string, () => FileStore]> = [
  ['directory', () => new DirFileStore(join(dir, 'uploads'))],
  [`database (${backend})`, () => new DbFileStore(db)],
];

describe.each(kinds)('%s file store', (_name, make) => {
  it('stores, reads back and replaces bytes with their content type', async () => {
    const fs = make();
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0, 255, 10]);
    await fs.put('doc_1.pdf', bytes, 'application/pdf');
    const got = await fs.get('doc_1.pdf');
    expect(got).toMatchObject({ contentType: 'application/pdf', size: 7 });
    expect([...got!.bytes]).toEqual([...bytes]);
    await fs.put('doc_1.pdf', new Uint8Array([1]), 'image/png');
    expect(await fs.get('doc_1.pdf')).toMatchObject({ contentType: 'image/png', size: 1 });
    await fs.delete('doc_1.pdf');
    expect(await fs.get('doc_1.pdf')).toBeUndefined();
  });

  it('stores a file from local disk (an upload\'s temp file)', async () => {
    const fs = make();
    const src = join(dir, 'incoming.part');
    writeFileSync(src, Buffer.from([0x89, 0x50, 0x4e, 0x47, 7]));
    await fs.putFile('scan.png', src, 'image/png');
    const got = await fs.get('scan.png');
    expect(got).toMatchObject({ contentType: 'image/png', size: 5 });
    expect([...got!.bytes]).toEqual([0x89, 0x50, 0x4e, 0x47, 7]);
    // a directory store moves the temp file into place; a database store leaves it to the caller
    expect(existsSync(src)).toBe(fs.kind === 'database');
  });

  it('refuses keys that could leave the store', async () => {
    const fs = make();
    for (const key of ['../x', 'a/b', '', '.hidden', 'a..b']) {
      await expect(fs.put(key, new Uint8Array([1]), 'image/png')).rejects.toThrow(/invalid file key/);
    }
  });
});

describe('database file store inside a transaction', () => {
  it('a file written in a transaction that rolls back is not there', async () => {
    const fs = new DbFileStore(db);
    await expect(
      db.tx(async (q) => {
        await fs.put('k1', new Uint8Array([1, 2]), 'image/png', q);
        throw new Error('record refused');
      }),
    ).rejects.toThrow('record refused');
    expect(await fs.get('k1')).toBeUndefined();
    await db.tx((q) => fs.put('k1', new Uint8Array([1, 2]), 'image/png', q));
    expect((await fs.get('k1'))!.size).toBe(2);
  });
});

describe('default file store', () => {
  it(`is the ${backend === 'postgres' ? 'database' : 'directory'} on ${backend}`, async () => {
    const fs = defaultFileStore(db, dir);
    expect(fs.kind).toBe(backend === 'postgres' ? 'database' : 'directory');
    await fs.put('x', new Uint8Array([7]), 'image/jpeg');
    const onDisk = readdirSync(dir, { recursive: true }).map(String);
    expect(onDisk.includes(join('uploads', 'x'))).toBe(backend === 'sqlite');
  });
});
