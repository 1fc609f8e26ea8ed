import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';
import { chargeBody } from '../helpers/money.js';

// `mpay api`'s fields follow `gh api`: -f/--raw-field sends a string, -F/--field a typed value
// (true, false, null, integers; @file reads a file; key[sub]=v and key[]=v nest).
const home = cliHome();
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mpay-api-'));
  writeFileSync(join(dir, 'charge.json'), JSON.stringify(chargeBody(2500, { payment_method: 'pix' })));
  writeFileSync(join(dir, 'name.txt'), 'from a file');
});
afterAll(() => {
  home.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('mpay api fields, as gh api', () => {
  it('-f days=1 sends the string "1": the service names the type, and mpay says to use -F', () => {
    const r = home.run(['api', 'POST', '/v1/sandbox/clock/advance', '-f', 'days=1']);
    expect(r.code).toBe(1);
    expect(r.json().details).toEqual([{ field: 'days', message: 'must be a whole number of days, got a string ("1"; send the number without quotes)' }]);
    expect(r.stderr).toContain('hint: -f/--raw-field sends days as a string; -F days=1 (--field) sends it as a number, as with gh api');
  });

  it('-F days=1 and --field days=1 send a number', () => {
    const short = home.run(['api', 'POST', '/v1/sandbox/clock/advance', '-F', 'days=1']);
    expect(short.code, short.stdout + short.stderr).toBe(0);
    expect(short.json().data.advanced_days).toBe(1);
    const long = home.run(['api', 'POST', '/v1/sandbox/clock/advance', '--field', 'days=2']);
    expect(long.code, long.stdout + long.stderr).toBe(0);
    expect(long.json().data.advanced_days).toBe(2);
  });

  it('-F converts true, false, null and integers only; -f and --raw-field keep strings; key[sub] nests', () => {
    const r = home.run([
      'api', 'POST', '/v1/charges', '--input', join(dir, 'charge.json'),
      '-F', 'metadata[n]=7', '-F', 'metadata[neg]=-3', '-F', 'metadata[yes]=true', '-F', 'metadata[no]=false', '-F', 'metadata[none]=null',
      '-F', 'metadata[fraction]=1.5', '-F', 'metadata[word]=seven', '-f', 'metadata[s]=7', '--raw-field', 'metadata[t]=true',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json().data.metadata).toEqual({ n: 7, neg: -3, yes: true, no: false, none: null, fraction: '1.5', word: 'seven', s: '7', t: 'true' });
  });

  it('key[]=v builds a list; -F key=@file reads the value from a file, @- from stdin', () => {
    const r = home.run(['api', 'POST', '/v1/api-keys', '-F', `name=@${join(dir, 'name.txt')}`, '-f', 'allowed_ips[]=10.0.0.0/8', '-f', 'allowed_ips[]=192.168.1.7']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json().data).toMatchObject({ name: 'from a file', allowed_ips: ['10.0.0.0/8', '192.168.1.7'] });
    const stdin = home.run(['api', 'POST', '/v1/api-keys', '-F', 'name=@-'], { input: 'piped name' });
    expect(stdin.code, stdin.stdout + stdin.stderr).toBe(0);
    expect(stdin.json().data.name).toBe('piped name');
  });

  it('on GET the fields are the query string', () => {
    const r = home.run(['api', 'GET', '/v1/api-keys', '-F', 'per_page=1']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json().pagination.perPage).toBe(1);
  });

  it('a field without = or given twice is a usage error (exit 2) with gh\'s wording', () => {
    const noValue = home.run(['api', 'POST', '/v1/api-keys', '-f', 'name']);
    expect(noValue.code).toBe(2);
    expect(noValue.stderr).toContain('field "name" requires a value separated by an \'=\' sign');
    const twice = home.run(['api', 'POST', '/v1/api-keys', '-f', 'name=a', '-F', 'name=b']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('unexpected override existing field under "name"');
    const missingFile = home.run(['api', 'POST', '/v1/api-keys', '-F', `name=@${join(dir, 'nope.txt')}`]);
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toMatch(/error parsing "name" value: .*nope\.txt/);
  });
});
