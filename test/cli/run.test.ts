import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.js';
import { buildRequest } from '../../src/cli/runOperation.js';
import { allSpecs } from '../../src/cli/specs.js';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { embeddedCli } from '../helpers/embedded-cli.js';

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(async () => env.close());

const cli = embeddedCli(() => env);

const spec = (id: string) => allSpecs().find((s) => s.id === id)!;

describe('parsing: flags and --input become the request', () => {
  it('maps nested flags onto the body and parses types', async () => {
    const io = bufferIO();
    const req = await buildRequest({
      spec: spec('tokens.create'),
      args: [],
      opts: { 'card.number': '4111111111111111', 'card.holderName': 'Ana', 'card.expirationMonth': '12', 'card.expirationYear': '2030', 'card.cvv': '123' },
      globals: {},
      io,
    });
    expect(req.body).toEqual({ card: { number: '4111111111111111', holderName: 'Ana', expirationMonth: '12', expirationYear: '2030', cvv: '123' } });
  });

  it('repeatable and comma-separated lists; query flags; pagination', async () => {
    const req = await buildRequest({ spec: spec('apiKeys.create'), args: [], opts: { name: 'x', allowedIps: ['1.1.1.1,2.2.2.2', '10.0.0.0/8'] }, globals: {}, io: bufferIO() });
    expect(req.body).toEqual({ name: 'x', allowed_ips: ['1.1.1.1', '2.2.2.2', '10.0.0.0/8'] });
    const list = await buildRequest({ spec: spec('apiKeys.list'), args: [], opts: { isActive: 'true', page: '2', perPage: '5' }, globals: {}, io: bufferIO() });
    expect(list.query).toEqual({ is_active: 'true', page: 2, per_page: 5 });
  });

  it('refuses a bad number with the flag named', async () => {
    await expect(buildRequest({ spec: spec('apiKeys.list'), args: [], opts: { perPage: 'ten' }, globals: {}, io: bufferIO() })).rejects.toThrow(
      "--per-page must be a whole number, got 'ten'",
    );
  });
});

describe('running: exact output', () => {
  it('prints only data on stdout as JSON when not a terminal', async () => {
    const r = await cli(['merchant', 'get']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ id: env.merchant.merchant_id, mode: 'sandbox' });
  });

  it('prints a table on a terminal with readable values', async () => {
    const r = await cli(['keys', 'list'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/│ is_active\s*│/);
    expect(r.stdout).toMatch(/│ yes\s*│/);
  });

  it('an API error goes to stderr with its fields, never to stdout', async () => {
    const r = await cli(['keys', 'create', '--allowed-ips', 'nope', '--name', 'x']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: Invalid request body: allowed_ips\[0\]: must be an IPv4\/IPv6 address or CIDR/);
  });

  it('--all walks every page; -o jsonl streams one record per line', async () => {
    for (let i = 0; i < 4; i++) await cli(['keys', 'create', '--name', `k${i}`]);
    const all = await cli(['keys', 'list', '--all', '--per-page', '2', '-o', 'jsonl']);
    expect(all.code).toBe(0);
    const lines = all.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.length).toBe(5);
    expect(new Set(lines.map((k) => k.id)).size).toBe(5);
  });

  it('unknown flags and missing arguments are exit 2', async () => {
    expect((await cli(['keys', 'list', '--bogus'])).code).toBe(2);
    const r = await cli(['keys', 'revoke']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("missing required argument 'id'");
  });
});
