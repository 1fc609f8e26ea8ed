// Commands started at the same moment on a fresh home (a CI matrix sharing one HOME, a shell
// loop with `&`) make the sandbox's keys once: the first saves them, the others wait their turn
// and find them. Without that, each made a key, each said it had saved it in the profile, and
// the profile kept the last one.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cliHome } from '../helpers/cli.js';

const home = cliHome();
afterAll(() => home.cleanup());

function together(n: number, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }[]> {
  return Promise.all(
    Array.from({ length: n }, () => {
      const child = spawn(process.execPath, [BIN, ...args], { env: home.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      return new Promise<{ code: number | null; stdout: string; stderr: string }>((r) => child.on('close', (code) => r({ code, stdout, stderr })));
    }),
  );
}

describe('first use, many commands at once', () => {
  it("the profile's sandbox gets one key, made and announced once", async () => {
    const runs = await together(4, ['keys', 'list', '-o', 'json']);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(runs.filter((r) => r.stderr.includes('Created sandbox credentials in profile "default"'))).toHaveLength(1);
    const keys = home.run(['keys', 'list', '-o', 'json']).json() as { public_key: string }[];
    expect(keys).toHaveLength(1);
    const saved = JSON.parse(readFileSync(join(home.env.MPAY_CONFIG_DIR!, 'config.json'), 'utf8'));
    expect(saved.profiles.default.public_key).toBe(keys[0]!.public_key);
  }, 60_000);

  it('a data directory given for one command: the same', async () => {
    const dir = join(home.dir, 'other');
    const runs = await together(4, ['--data-dir', dir, 'keys', 'list', '-o', 'json']);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(runs.filter((r) => r.stderr.includes(`Created sandbox credentials for ${dir}`))).toHaveLength(1);
    expect(home.run(['--data-dir', dir, 'keys', 'list', '-o', 'json']).json()).toHaveLength(1);
  }, 60_000);
});
