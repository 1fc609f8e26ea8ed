/** `--database` / MPAY_DATABASE_URL: refused before anything opens when it cannot work. */
import { afterAll, describe, expect, it } from 'vitest';
import { cliHome } from '../helpers/cli.js';

const home = cliHome();
afterAll(() => home.cleanup());
const KEY = { MPAY_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') };

describe('choosing the database', () => {
  it('refuses a URL that is not PostgreSQL, naming the flag or the variable', () => {
    const flag = home.run(['server', 'start', '--database', 'mysql://db/mpay'], { env: KEY });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--database must be a PostgreSQL URL');
    const env = home.run(['server', 'start'], { env: { ...KEY, MPAY_DATABASE_URL: 'sqlite:./x.db' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('MPAY_DATABASE_URL must be a PostgreSQL URL');
  });

  it('refuses a shared database without MPAY_MASTER_KEY (server and admin) and never prints the password', () => {
    const s = home.run(['server', 'start', '--database', 'postgres://u:hunter2@127.0.0.1:1/x']);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('needs MPAY_MASTER_KEY');
    const a = home.run(['admin', 'merchants', 'create', '--name', 'x'], { env: { MPAY_DATABASE_URL: 'postgres://u:hunter2@127.0.0.1:1/x' } });
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('MPAY_DATABASE_URL needs MPAY_MASTER_KEY');
    expect(s.stderr + a.stderr).not.toContain('hunter2');
  });

  it('reports an unreachable database as a refusal, without the password', () => {
    const r = home.run(['server', 'start', '--database', 'postgres://u:hunter2@127.0.0.1:1/x'], { env: KEY });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('cannot open the database postgres://u:***@127.0.0.1:1/x');
    expect(r.stderr).not.toContain('hunter2');
  });
});
