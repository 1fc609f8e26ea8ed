import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { requestListener } from '../../src/server/http.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliHome } from '../helpers/cli.js';
import { testEnv, type TestEnv } from '../helpers/server.js';

/**
 * A reader that goes away (`| head -1`, `| true`): mpay runs with stdout on a pipe whose read
 * end we close after `keep` bytes (0: before mpay writes anything). It must end quietly — exit
 * 0, no stack trace — and stop working (no more pages fetched for a list nobody reads).
 */
function runClosingStdout(args: string[], env: NodeJS.ProcessEnv, keep: number): Promise<{ code: number | null; signal: string | null; stderr: string; got: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let got = 0;
    child.stderr.on('data', (d) => (stderr += d));
    if (keep === 0) child.stdout.destroy();
    else
      child.stdout.on('data', (d: Buffer) => {
        got += d.length;
        if (got >= keep) child.stdout.destroy();
      });
    child.on('close', (code, signal) => resolve({ code, signal, stderr, got }));
  });
}

const home = cliHome();
afterAll(() => home.cleanup());

describe('a closed stdout ends mpay quietly', () => {
  it('mpay --help | true', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await runClosingStdout(['--help'], home.env, 0);
      expect(r.stderr).not.toMatch(/EPIPE|at .*\(|node:events/);
      expect([0, 141]).toContain(r.code);
    }
  });

  it('a JSON record and the completion script into a closed pipe', async () => {
    for (const args of [['keys', 'list', '-o', 'json'], ['completion', 'bash'], ['sandbox', 'values']]) {
      const r = await runClosingStdout(args, home.env, 0);
      expect(r.stderr, args.join(' ')).not.toMatch(/EPIPE|at .*\(|node:events/);
      expect([0, 141], args.join(' ')).toContain(r.code);
    }
  });

  describe('a long --all list whose reader leaves after the first page', () => {
    let env: TestEnv;
    let server: Server;
    let url = '';
    let listRequests = 0;
    const KEYS = 450;
    beforeAll(async () => {
      env = await testEnv();
      for (let i = 0; i < KEYS; i++) {
        const r = await env.call('POST', '/v1/api-keys', { name: `key number ${i} with a long enough name to fill the pipe quickly` });
        expect(r.status).toBe(201);
        // a merchant holds at most 20 active keys: revoked keys still list
        const id = (r.body as { data: { id: string } }).data.id;
        expect((await env.call('DELETE', `/v1/api-keys/${id}`)).status).toBe(200);
      }
      const listener = requestListener(env.rt.app);
      server = createServer((req, res) => {
        if (req.method === 'GET' && req.url?.startsWith('/v1/api-keys')) listRequests++;
        listener(req, res);
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const a = server.address();
      url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
    }, 120_000);
    afterAll(async () => {
      server?.close();
      await env?.close();
    });

    for (const format of ['json', 'jsonl']) {
      it(`-o ${format}: exits 0 without a trace and stops fetching pages`, async () => {
        listRequests = 0;
        const r = await runClosingStdout(
          ['--base-url', url, 'keys', 'list', '--all', '--per-page', '10', '-o', format],
          { ...home.env, MPAY_PUBLIC_KEY: env.merchant.public_key, MPAY_SECRET_KEY: env.merchant.secret_key },
          format === 'jsonl' ? 1 : 0,
        );
        expect(r.stderr).not.toMatch(/EPIPE|at .*\(|node:events/);
        expect([0, 141]).toContain(r.code);
        if (format === 'jsonl') expect(listRequests).toBeLessThan(KEYS / 10);
      });
    }
  });
});

describe('a closed stderr only silences mpay', () => {
  it('a usage error and a failed request keep their exit codes, with nothing on stdout', async () => {
    for (const [args, code] of [
      [['charges', 'list', '--limit', 'many'], 2],
      [['charges', 'get', 'ch_nope'], 4],
    ] as const) {
      const r = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, ...args], { env: home.env, stdio: ['ignore', 'pipe', 'pipe'] });
        child.stderr.destroy();
        let stdout = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.on('close', (c) => resolve({ code: c, stdout }));
      });
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.stdout, args.join(' ')).toBe('');
    }
  });
});

describe('output that cannot be written (a full disk)', () => {
  // /dev/full answers every write with ENOSPC, as a full file system does
  it.runIf(existsSync('/dev/full'))('says so on stderr and exits 1, never 0 with the data lost, never a stack', () => {
    expect(home.run(['whoami']).code).toBe(0); // the sandbox made first: its notice is not the point
    for (const args of [['keys', 'list', '-o', 'json'], ['sandbox', 'values'], ['--help']]) {
      const full = openSync('/dev/full', 'w');
      try {
        const r = spawnSync(process.execPath, [BIN, ...args], { env: home.env, stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
        expect(r.status, args.join(' ')).toBe(1);
        expect(r.stderr, args.join(' ')).toBe('error: cannot write the output: no space left on device (ENOSPC)\n');
      } finally {
        closeSync(full);
      }
    }
  });
});
