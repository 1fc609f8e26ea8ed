import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '../helpers/server.js';
import { embeddedCli } from '../helpers/embedded-cli.js';
import { cliHome } from '../helpers/cli.js';

/** With -o json / jsonl an error is one JSON object on stderr; the exit code stays the same. */
let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(async () => env.close());
const cli = embeddedCli(() => env);
const home = cliHome();
afterAll(() => home.cleanup());

function oneJsonObject(stderr: string) {
  const lines = stderr.trimEnd().split('\n');
  expect(lines, stderr).toHaveLength(1);
  const o = JSON.parse(lines[0]!);
  expect(Object.keys(o).sort()).toEqual(['details', 'error', 'message', 'request_id', 'status']);
  return o;
}

describe('errors a script can read', () => {
  it('a 404 from the service', async () => {
    for (const fmt of [['-o', 'json'], ['-o', 'jsonl'], ['--json'], ['--output=json']]) {
      const r = await cli(['charges', 'get', '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f', ...fmt]);
      expect(r.code).toBe(4);
      expect(r.stdout).toBe('');
      const o = oneJsonObject(r.stderr);
      expect(o).toMatchObject({ error: 'not_found', status: 404, details: [] });
      expect(o.request_id).toMatch(/\S+/);
      expect(o.message).toMatch(/not found/i);
    }
  });

  it('a validation error keeps its details', async () => {
    const r = await cli(['tokens', 'create', '-o', 'json', '--card.number', '123', '--card.holder-name', 'Ana', '--card.expiration-month', '12', '--card.expiration-year', '2030', '--card.cvv', '123']);
    expect(r.code).toBe(1);
    const o = oneJsonObject(r.stderr);
    expect(o).toMatchObject({ error: 'validation_error', status: 400 });
    expect(o.details).toContainEqual(expect.objectContaining({ field: 'card.number' }));
  });

  it('a usage error found by mpay (no request made)', async () => {
    const r = await cli(['keys', 'list', '--per-page', 'ten', '-o', 'json']);
    expect(r.code).toBe(2);
    expect(oneJsonObject(r.stderr)).toEqual({ error: 'usage_error', message: "--per-page must be a whole number, got 'ten'", status: null, request_id: null, details: [] });
  });

  it('a usage error found by the parser (unknown option, unknown command)', async () => {
    const a = await cli(['keys', 'list', '--bogus', '-o', 'jsonl']);
    expect(a.code).toBe(2);
    expect(oneJsonObject(a.stderr)).toMatchObject({ error: 'usage_error', message: expect.stringContaining("unknown option '--bogus'"), status: null });
    const b = await cli(['-o', 'json', 'kyes', 'list']);
    expect(b.code).toBe(2);
    expect(oneJsonObject(b.stderr)).toMatchObject({ error: 'usage_error', message: expect.stringContaining("unknown command 'kyes'") });
  });

  it('a hand-written command', async () => {
    const r = home.run(['profiles', 'use', 'nope', '-o', 'json']);
    expect(r.code).toBe(4);
    expect(oneJsonObject(r.stderr)).toMatchObject({ error: 'not_found', message: expect.stringContaining('profile "nope" does not exist'), status: null });
  });

  it('an unreachable service', () => {
    const r = home.run(['--base-url', 'http://127.0.0.1:1', 'keys', 'list', '-o', 'json'], { env: { MPAY_PUBLIC_KEY: 'pk_test_a', MPAY_SECRET_KEY: 'sk_test_b' } });
    expect(r.code).toBe(5);
    expect(oneJsonObject(r.stderr)).toMatchObject({ error: 'connection_error', status: null, request_id: null });
  });

  it('without -o json errors stay lines for people', async () => {
    const r = await cli(['charges', 'get', '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: .*\(not_found, HTTP 404\)\n {2}request id: /);
  });
});
