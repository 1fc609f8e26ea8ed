import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';

/**
 * `mpay wallets statement` pages its entries like the lists: `--page` / `--per-page` ask for
 * one page (a table says which, on stderr), `--all` walks every page into one statement (its
 * summary, every entry), `--limit N` stops after N entries.
 */
const home = cliHome();
afterAll(() => home.cleanup());

const ok = (args: string[]) => {
  const r = home.run(args);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
};

let wallet = '';
const period = ['--start-date', '2020-01-01', '--end-date', '2099-12-31'];
beforeAll(() => {
  for (let i = 1; i <= 7; i++) ok(['sandbox', 'wallet', 'adjust', '--direction', i % 3 ? 'credit' : 'debit', '--amount', String(i % 3 ? 1000 * i : 100 * i)]);
  wallet = ok(['wallets', 'list', '--owner-type', 'merchant', '--json']).json()[0].id;
}, 120_000);

describe('wallets statement', () => {
  it('--all walks every page into one statement; --page and --per-page ask for one page', () => {
    const whole = ok(['wallets', 'statement', wallet, ...period, '--per-page', '100', '--json']).json();
    expect(whole.entries).toHaveLength(7);
    const walked = ok(['wallets', 'statement', wallet, ...period, '--per-page', '3', '--all', '--json']).json();
    expect(walked).toEqual(whole);
    expect(walked.summary.closing_balance).toBe(walked.entries[6].balance_after);

    const third = ok(['wallets', 'statement', wallet, ...period, '--per-page', '3', '--page', '3', '--json']).json();
    expect(third.entries).toEqual(whole.entries.slice(6));
    expect(third.summary).toEqual(whole.summary);
    const limited = ok(['wallets', 'statement', wallet, ...period, '--per-page', '3', '--limit', '5', '--json']).json();
    expect(limited.entries).toEqual(whole.entries.slice(0, 5));
    const lines = ok(['wallets', 'statement', wallet, ...period, '--per-page', '2', '--all', '-o', 'jsonl']).stdout.trim().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([whole]);
  });

  it('a table says which page it shows; with --all it shows every entry', () => {
    const one = ok(['wallets', 'statement', wallet, ...period, '--per-page', '3', '-o', 'table']);
    expect(one.stdout).toMatch(/^entries \(3\)/m);
    expect(one.stderr).toContain('page 1 of 3 (7 entries); --page N or --all for more');
    const all = ok(['wallets', 'statement', wallet, ...period, '--per-page', '3', '--all', '-o', 'table']);
    expect(all.stdout).toMatch(/^entries \(7\)/m);
    expect(all.stdout).toMatch(/summary\.closing_balance\s*│ R\$/);
  });

  it('--per-page is checked against the contract before any request', () => {
    const r = home.run(['wallets', 'statement', wallet, ...period, '--per-page', '101']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--per-page must be from 1 to 100');
  });
});
