import { randomFillSync } from 'node:crypto';

/** The text of a UUID (any version, lower-case hex), for patterns that embed one. */
export const UUID_SOURCE = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** A whole string that is a UUID, in either case (ids in paths and flags). */
export const UUID_RE = new RegExp(`^${UUID_SOURCE}$`, 'i');

let lastMs = -1;
let seq = 0;

// Random bytes are drawn from the CSPRNG 4 KiB at a time (one call per 256 ids, as
// crypto.randomUUID does) and each id copies its 16 bytes out, so no two ids share any.
const POOL = Buffer.alloc(4096);
let poolAt = POOL.length;
function random16(): Buffer {
  if (poolAt + 16 > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  const b = Buffer.from(POOL.subarray(poolAt, poolAt + 16));
  poolAt += 16;
  return b;
}

/**
 * UUID version 7: time-ordered, so ids sort by creation and index well. Within one
 * millisecond the 12 bits after the version carry a counter (RFC 9562, method 1), so ids made
 * by one process also sort in the order they were made.
 */
export function uuidv7(now: number = Date.now()): string {
  const b = random16();
  if (now <= lastMs) {
    // same millisecond (or the clock stepped back): keep counting on the last timestamp
    now = lastMs;
    if (++seq > 0xfff) {
      now = ++lastMs;
      seq = 0;
    }
  } else {
    lastMs = now;
    seq = b[7]! & 0x3ff; // a random start in the lower 1024 leaves room for 3072 more ids
  }
  b[0] = Math.floor(now / 2 ** 40) & 0xff;
  b[1] = Math.floor(now / 2 ** 32) & 0xff;
  b[2] = (now >>> 24) & 0xff;
  b[3] = (now >>> 16) & 0xff;
  b[4] = (now >>> 8) & 0xff;
  b[5] = now & 0xff;
  b[6] = 0x70 | ((seq >> 8) & 0x0f);
  b[7] = seq & 0xff;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export type IdGenerator = () => string;
