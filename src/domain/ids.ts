import { randomFillSync } from 'node:crypto';

/** The text of a UUID (any version, lower-case hex), for patterns that embed one. */
export const UUID_SOURCE = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** A whole string that is a UUID, in either case (ids in paths and flags). */
export const UUID_RE = new RegExp(`^${UUID_SOURCE}$`, 'i');

let lastMs = -1;
let seq = 0;

// Random bytes are drawn from the CSPRNG 4 KiB at a time (one call per 256 ids, as
// crypto.randomUUID does) and each id reads its own 16 bytes of them, so no two ids share any.
const POOL = Buffer.alloc(4096);
let poolAt = POOL.length;
/** The offset in POOL of 16 random bytes no other id reads. */
function random16(): number {
  if (poolAt + 16 > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += 16;
  return at;
}

/** Two hex digits of each byte value: an id is written from these, without a Buffer of its own. */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * UUID version 7: time-ordered, so ids sort by creation and index well. Within one
 * millisecond the 12 bits after the version carry a counter (RFC 9562, method 1), so ids made
 * by one process also sort in the order they were made.
 */
export function uuidv7(now: number = Date.now()): string {
  const r = random16();
  const b = POOL;
  if (now <= lastMs) {
    // same millisecond (or the clock stepped back): keep counting on the last timestamp
    now = lastMs;
    if (++seq > 0xfff) {
      now = ++lastMs;
      seq = 0;
    }
  } else {
    lastMs = now;
    seq = b[r + 7]! & 0x3ff; // a random start in the lower 1024 leaves room for 3072 more ids
  }
  const h = HEX;
  // bytes 0-5 the milliseconds, 6-7 the version (7) and the counter, 8 the variant (10xx xxxx), 9-15 random
  return (
    h[Math.floor(now / 2 ** 40) & 0xff]! + h[Math.floor(now / 2 ** 32) & 0xff]! + h[(now >>> 24) & 0xff]! + h[(now >>> 16) & 0xff]! +
    '-' + h[(now >>> 8) & 0xff]! + h[now & 0xff]! +
    '-' + h[0x70 | ((seq >> 8) & 0x0f)]! + h[seq & 0xff]! +
    '-' + h[(b[r + 8]! & 0x3f) | 0x80]! + h[b[r + 9]!]! +
    '-' + h[b[r + 10]!]! + h[b[r + 11]!]! + h[b[r + 12]!]! + h[b[r + 13]!]! + h[b[r + 14]!]! + h[b[r + 15]!]!
  );
}

export type IdGenerator = () => string;
