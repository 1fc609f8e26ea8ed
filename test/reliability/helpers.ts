import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Prints one figure line of a reliability suite (kept in the test output and in CI logs). */
export function report(line: string): void {
  console.log(`reliability: ${line}`);
}

/**
 * A temp directory in memory (/dev/shm) when the suite tests logic rather than the disk:
 * fsync is free there, so thousands of transactions fit the CI time budget.
 */
export function memTempDir(prefix: string): string {
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  return mkdtempSync(join(base, prefix));
}
