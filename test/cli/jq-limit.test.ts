import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Target } from '../../src/cli/target.js';
import { MpayClient } from '../../src/sdk/client.js';
import { EmbeddedTransport } from '../../src/sdk/embeddedTransport.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { loadedBy } from '../helpers/trace.js';

/** --jq with real jq (jq-wasm) on every data command; --limit N fetches pages until N. */
let env: TestEnv;
let listCalls = 0;
beforeAll(async () => {
  env = await testEnv();
  for (let i = 0; i < 6; i++) expect((await env.call('POST', '/v1/api-keys', { name: `k${i}` })).status).toBe(201);
});
afterAll(async () => env.close());

async function cli(args: string[], o: { tty?: boolean } = {}) {
  const fetch = (req: Request) => {
    if (req.method === 'GET' && new URL(req.url).pathname === '/v1/api-keys') listCalls++;
    return env.rt.app.fetch(req);
  };
  const target = async (): Promise<Target> => ({
    kind: 'embedded',
    profileName: 'test',
    client: new MpayClient({ transport: new EmbeddedTransport(fetch), publicKey: env.merchant.public_key, secretKey: env.merchant.secret_key }),
    close: async () => undefined,
  });
  const io = bufferIO({ tty: o.tty, env: { NO_COLOR: '1' } });
  const code = await main(args, io, target);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('--jq', () => {
  it('filters a list with jq semantics; strings print raw', async () => {
    const r = await cli(['keys', 'list', '--per-page', '100', '--jq', '[.[] | select(.name | startswith("k"))] | sort_by(.name) | .[0:2] | .[].name']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('k0\nk1\n');
    const n = await cli(['keys', 'list', '--per-page', '100', '--jq', 'map(select(.is_active)) | length']);
    expect(n.stdout).toBe('7\n');
  });

  it('on a record, on a terminal too (wins over the table), and with --all', async () => {
    const r = await cli(['merchant', 'get', '--jq', '.id'], { tty: true });
    expect(r.stdout).toBe(`${env.merchant.merchant_id}\n`);
    const a = await cli(['keys', 'list', '--all', '--per-page', '2', '--jq', 'length']);
    expect(a.stdout).toBe('7\n');
    const o = await cli(['keys', 'list', '--jq', '{n: length}', '-o', 'jsonl']);
    expect(JSON.parse(o.stdout)).toEqual({ n: 7 });
  });

  it('on a hand-written data command (sandbox values)', async () => {
    const r = await cli(['sandbox', 'values', '--jq', 'type']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('array\n');
  });

  it('a bad expression is a usage error with jq\'s message', async () => {
    const r = await cli(['keys', 'list', '--jq', '.[']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: --jq: .*syntax error/);
  });
});

describe('--limit', () => {
  it('fetches pages until N records', async () => {
    listCalls = 0;
    const r = await cli(['keys', 'list', '--limit', '5', '--per-page', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(5);
    expect(listCalls).toBe(3);
    const l = await cli(['keys', 'list', '--limit', '3', '-o', 'jsonl']);
    expect(l.stdout.trim().split('\n')).toHaveLength(3);
    const more = await cli(['keys', 'list', '--limit', '50']);
    expect(JSON.parse(more.stdout)).toHaveLength(7);
  });

  it('a bad --limit is a usage error', async () => {
    for (const v of ['0', 'x']) {
      const r = await cli(['keys', 'list', '--limit', v]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--limit');
    }
  });
});

describe('start-up', () => {
  it('jq-wasm is loaded only when --jq is given', () => {
    expect(loadedBy(['sandbox', 'values', '-o', 'json']).filter((m) => m.includes('jq-wasm'))).toEqual([]);
    expect(loadedBy(['--version']).filter((m) => m.includes('jq-wasm'))).toEqual([]);
    expect(loadedBy(['sandbox', 'values', '--jq', 'length']).some((m) => m.includes('jq-wasm'))).toBe(true);
  });
});
