// The README's "Five minutes with mpay" runs as written: its shell block, pasted into bash with
// `mpay` on the PATH, in a fresh home (only the server's port changes, to a free one).
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';

const root = resolve(__dirname, '../..');
const home = cliHome();
afterAll(() => home.cleanup());

/** The first ```sh block after the heading. */
function walkthrough(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Five minutes with mpay'));
  const m = /```sh\n([\s\S]*?)```/.exec(section);
  if (!m) throw new Error('no shell block under "Five minutes with mpay"');
  return m[1]!;
}

const freePort = () =>
  new Promise<number>((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });

describe('README walkthrough', () => {
  it('runs to its end in bash, every command succeeding', async () => {
    const bin = join(home.dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'mpay'), `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'bin/mpay.js')}" "$@"\n`);
    chmodSync(join(bin, 'mpay'), 0o755);
    const port = await freePort();
    const script = walkthrough().replaceAll('4010', String(port));
    const r = await new Promise<{ code: number | null; out: string; err: string }>((done) => {
      const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
        env: { ...home.env, PATH: `${bin}:${process.env.PATH}`, TMPDIR: home.dir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('close', (code) => done({ code, out, err }));
    });
    expect(r.code, `stderr:\n${r.err}\nstdout:\n${r.out}`).toBe(0);
    expect(r.out).toContain('Loja da Ana');
    expect(r.err).not.toMatch(/^warning:/m);
  }, 180_000);
});
