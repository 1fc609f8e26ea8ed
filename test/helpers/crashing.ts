/**
 * A store that kills its own process (SIGKILL) in the middle of a transaction, as a crash
 * between two writes would: once a statement of a transaction matches `after`, the next
 * statement — or the COMMIT, when none comes — is never run. For the crash tests' worker
 * processes (test/fixtures/withdraw-worker.ts), which prove that a crash at any point leaves
 * no partial state.
 */
import type { Db, Queryable } from '../../src/store/db.js';

export function crashingAfter(db: Db, after: RegExp): Db {
  const die = () => process.kill(process.pid, 'SIGKILL');
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== 'tx') {
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      }
      return <T>(fn: (q: Queryable) => Promise<T>) =>
        target.tx(async (q) => {
          let armed = false;
          const step =
            (name: 'all' | 'get' | 'run') =>
            (sql: string, params?: readonly unknown[]) => {
              if (armed) die();
              if (after.test(sql)) armed = true;
              return (q[name] as (s: string, p?: readonly unknown[]) => Promise<unknown>)(sql, params);
            };
          const watched = { dialect: q.dialect, all: step('all'), get: step('get'), run: step('run') } as Queryable;
          const out = await fn(watched);
          if (armed) die();
          return out;
        });
    },
  });
}
