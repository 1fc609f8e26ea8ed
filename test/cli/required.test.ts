import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Target } from '../../src/cli/target.js';

/**
 * Required flags and the contract's ranges are checked before any request: a usage error (exit 2)
 * naming the flags. The target opener counts calls: none may happen.
 */
async function run(args: string[], o: { cwd?: string } = {}) {
  let opened = 0;
  const io = bufferIO({ env: { NO_COLOR: '1' }, cwd: o.cwd });
  const code = await main(args, io, async (): Promise<Target> => {
    opened++;
    throw new Error('no request may be made');
  });
  return { code, stdout: io.stdout, stderr: io.stderr, opened };
}

describe('required flags are checked locally', () => {
  it('charges create --amount 100 names every missing flag', async () => {
    const r = await run(['charges', 'create', '--amount', '100']);
    expect(r.code).toBe(2);
    expect(r.opened).toBe(0);
    expect(r.stderr).toMatch(/^error: missing required flags: /);
    for (const f of ['--product-type', '--customer.name', '--customer.email', '--customer.tax-id', '--customer.phone', '--customer.type', '--items', '--payment-method']) expect(r.stderr).toContain(f);
    expect(r.stderr).not.toContain('--amount,');
  });

  it('a query flag (wallets statement --start-date/--end-date) and the global --idempotency-key', async () => {
    const a = await run(['wallets', 'statement', '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f', '--start-date', '2026-01-01']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('--end-date');
    expect(a.stderr).not.toContain('--start-date');
    const w = await run(['withdrawals', 'create', '--type', 'pix', '--wallet-id', '0190f0c4-1c2b-7d3e-8f40-5a6b7c8d9e0f', '--amount', '100', '--yes']);
    expect(w.code).toBe(2);
    expect(w.stderr).toContain('--idempotency-key');
    expect(w.opened).toBe(0);
  });

  it('fields given by --input count', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpay-req-'));
    writeFileSync(join(dir, 'key.json'), JSON.stringify({ name: 'from file' }));
    const r = await run(['keys', 'create', '--input', 'key.json'], { cwd: dir });
    expect(r.stderr).not.toContain('missing required');
    expect(r.opened).toBe(1);
    writeFileSync(join(dir, 'partial.json'), JSON.stringify({ customer: { name: 'Ana' } }));
    const p = await run(['charges', 'create', '--input', 'partial.json', '--amount', '100'], { cwd: dir });
    expect(p.code).toBe(2);
    expect(p.stderr).toContain('--customer.email');
    expect(p.stderr).not.toContain('--customer.name');
  });

  it('with -o json the usage error is the JSON report', async () => {
    const r = await run(['keys', 'create', '-o', 'json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: 'usage_error', message: 'missing required flag: --name (see `mpay keys create --help`)' });
  });
});

describe("the contract's ranges are usage errors", () => {
  it('--per-page 500, --page 0', async () => {
    const a = await run(['keys', 'list', '--per-page', '500']);
    expect(a.code).toBe(2);
    expect(a.opened).toBe(0);
    expect(a.stderr).toBe("error: --per-page must be from 1 to 100, got '500'\n");
    const b = await run(['charges', 'list', '--page', '0']);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--page must be');
  });

  it('amounts in cents, installments, days, lengths', async () => {
    const base = ['--product-type', 'digital', '--payment-method', 'pix', '--customer.name', 'Ana', '--customer.email', 'a@example.com', '--customer.tax-id', '52998224725', '--customer.phone', '11999990000', '--customer.type', 'individual', '--items', '[]'];
    const zero = await run(['charges', 'create', '--amount', '0', ...base]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain("--amount must be at least 1 (cents), got '0'");
    const big = await run(['charges', 'create', '--amount', '1000000001', ...base]);
    expect(big.stderr).toContain("--amount must be at most 1000000000 (cents), got '1000000001'");
    const inst = await run(['charges', 'create', '--amount', '100', ...base, '--payment-details.installments', '13']);
    expect(inst.stderr).toContain("--payment-details.installments must be from 1 to 12, got '13'");
    const days = await run(['sandbox', 'advance', '--days', '0']);
    expect(days.code).toBe(2);
    expect(days.stderr).toContain('--days must be at least 1 (days)');
    const name = await run(['keys', 'create', '--name', '']);
    expect(name.code).toBe(2);
    expect(name.stderr).toContain('--name must not be empty');
    // blanks are empty, as the API says of them
    const blank = await run(['keys', 'create', '--name', '   ']);
    expect(blank.code).toBe(2);
    expect(blank.stderr).toContain("--name must not be empty, got '   '");
    // a boolean flag given both ways is refused, not decided by the last one
    const both = await run(['charges', 'create', '--amount', '100', ...base, '--no-capture', '--capture']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--capture and --no-capture contradict each other: give one');
    for (const r of [zero, big, inst, days, name, blank, both]) expect(r.opened).toBe(0);
  });
});
