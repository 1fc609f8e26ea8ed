import { LRUCache } from 'lru-cache';

/**
 * The one bounded memo of the server: at most `max` entries, the least recently used dropped
 * first (lru-cache). A value may be null — a remembered "nothing" — and is told apart from a
 * miss (undefined). Every memo belongs to a runtime (src/server/services/caches.ts), none to a module.
 */
export class Memo<K extends {}, V> {
  /**
   * Made on the first `set`: lru-cache allocates its arrays for `max` entries up front, which
   * for the runtime's memos (some 54,000 entries) would cost ~3 ms of every embedded CLI command,
   * most of which never remember anything (bench/startup).
   */
  private lru: LRUCache<K, { v: V }> | undefined;

  constructor(readonly max: number) {}

  get(key: K): V | undefined {
    return this.lru?.get(key)?.v;
  }

  set(key: K, value: V): void {
    this.lru ??= new LRUCache({ max: this.max });
    this.lru.set(key, { v: value });
  }

  delete(key: K): void {
    this.lru?.delete(key);
  }

  clear(): void {
    this.lru?.clear();
  }

  get size(): number {
    return this.lru?.size ?? 0;
  }
}
