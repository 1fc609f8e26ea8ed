// A one-off --data-dir (or MPAY_DATA_DIR) overrides the data directory for that command only:
// the profile is never rewritten, and the keys of a directory no profile owns are kept apart,
// per directory, so coming back to it finds the same merchant with the same key.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';

const home = cliHome();
afterAll(() => home.cleanup());
const other = join(home.dir, 'other');
const configFile = join(home.env.MPAY_CONFIG_DIR!, 'config.json');
const config = () => readFileSync(configFile, 'utf8');

let own: { id: string };
let profileText: string;
beforeAll(() => {
  const r = home.run(['merchant', 'get', '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain('Created sandbox credentials in profile "default"');
  own = r.json();
  profileText = config();
});

describe('a data directory given for one command', () => {
  it('--data-dir talks to that directory and leaves the profile as it was', () => {
    const r = home.run(['--data-dir', other, 'merchant', 'get', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().id).not.toBe(own.id);
    expect(r.stderr).not.toContain('in profile "default"');
    expect(r.stderr).toContain(`Created sandbox credentials for ${other}`);
    expect(config()).toBe(profileText);
    // the kept keys are secrets: the owner's alone, like the profiles
    expect(statSync(join(home.env.MPAY_CONFIG_DIR!, 'sandboxes.json')).mode & 0o777).toBe(0o600);
    // the next plain command is the profile's own sandbox again
    const back = home.run(['merchant', 'get', '-o', 'json']);
    expect(back.code, back.stderr).toBe(0);
    expect(back.json().id).toBe(own.id);
  });

  it('coming back to the directory finds the same merchant and key, and mints none', () => {
    const first = home.run(['--data-dir', other, 'whoami', '-o', 'json']);
    const again = home.run(['--data-dir', other, 'whoami', '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('Created sandbox credentials');
    expect(again.json().merchant.id).toBe(first.json().merchant.id);
    expect(again.json().key.public_key).toBe(first.json().key.public_key);
    const keys = home.run(['--data-dir', other, 'keys', 'list', '-o', 'json']).json() as unknown[];
    expect(keys).toHaveLength(1);
    expect(config()).toBe(profileText);
  });

  it('MPAY_DATA_DIR does the same, and says it only overrides', () => {
    const r = home.run(['whoami', '-o', 'json'], { env: { MPAY_DATA_DIR: other } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: MPAY_DATA_DIR overrides data_dir of profile "default"/);
    expect(r.stderr).not.toContain('Created sandbox credentials');
    expect(r.json().target).toBe(`embedded:${other}`);
    expect(config()).toBe(profileText);
    expect(home.run(['merchant', 'get', '-o', 'json']).json().id).toBe(own.id);
  });

  it('a directory emptied and made again gets fresh keys, still apart from the profile', async () => {
    const { rmSync } = await import('node:fs');
    const dir = join(home.dir, 'again');
    const a = home.run(['--data-dir', dir, 'merchant', 'get', '-o', 'json']);
    expect(a.code, a.stderr).toBe(0);
    rmSync(dir, { recursive: true, force: true });
    const b = home.run(['--data-dir', dir, 'merchant', 'get', '-o', 'json']);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).toContain(`Created sandbox credentials for ${dir}`);
    expect(config()).toBe(profileText);
  });
});

describe('a kept-keys file that is not JSON', () => {
  it('is replaced with a warning: the directory gets fresh keys, and the command answers', () => {
    const fresh = cliHome();
    try {
      const kept = join(fresh.env.MPAY_CONFIG_DIR!, 'sandboxes.json');
      mkdirSync(fresh.env.MPAY_CONFIG_DIR!, { recursive: true });
      writeFileSync(kept, '{half');
      const dir = join(fresh.dir, 'data');
      const r = fresh.run(['--data-dir', dir, 'keys', 'list', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`warning: ${kept} was not a JSON object; replaced`);
      expect(r.stderr).toContain(`Created sandbox credentials for ${dir}`);
      expect(Object.keys(JSON.parse(readFileSync(kept, 'utf8')))).toEqual([dir]);
      // a good file is kept without a word
      const next = fresh.run(['--data-dir', join(fresh.dir, 'data2'), 'keys', 'list', '-o', 'json']);
      expect(next.stderr).not.toContain('warning');
      expect(Object.keys(JSON.parse(readFileSync(kept, 'utf8'))).sort()).toEqual([dir, join(fresh.dir, 'data2')].sort());
      expect(statSync(kept).mode & 0o777).toBe(0o600);
    } finally {
      fresh.cleanup();
    }
  });
});

describe('the first command ever, with only an override', () => {
  it('writes no profile', () => {
    const fresh = cliHome();
    try {
      const dir = join(fresh.dir, 'ci-data');
      const r = fresh.run(['keys', 'list', '-o', 'json'], { env: { MPAY_DATA_DIR: dir } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`Created sandbox credentials for ${dir}`);
      expect(existsSync(join(fresh.env.MPAY_CONFIG_DIR!, 'config.json'))).toBe(false);
      const again = fresh.run(['keys', 'list', '-o', 'json'], { env: { MPAY_DATA_DIR: dir } });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toBe('');
      expect(again.json()).toHaveLength(1);
      expect(fresh.run(['profiles', 'list', '-o', 'json']).json()).toEqual([]);
    } finally {
      fresh.cleanup();
    }
  });
});
