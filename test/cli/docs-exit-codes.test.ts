// One truth for Ctrl-C: every command exits 130 (src/cli/signals.ts), and the documents say so
// wherever they give Ctrl-C an exit code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/errors.js';

const root = join(__dirname, '../..');

/** The exit codes a document gives Ctrl-C: "Ctrl-C … (exit N" and "Ctrl-C … exits N" within a sentence. */
function ctrlCCodes(text: string): { code: number; where: string }[] {
  const flat = text.replace(/\s+/g, ' ');
  const out: { code: number; where: string }[] = [];
  for (const m of flat.matchAll(/Ctrl-C[^.;()]*\(exit (\d+)|Ctrl-C[^.]*?\bexits? \**(\d+)/g)) {
    out.push({ code: Number(m[1] ?? m[2]), where: m[0] });
  }
  return out;
}

describe('Ctrl-C in the documents', () => {
  it.each(['docs/cli.md', 'README.md', 'docs/webhooks.md'])('%s gives it exit 130 only', (file) => {
    const codes = ctrlCCodes(readFileSync(join(root, file), 'utf8'));
    for (const c of codes) expect(c.code, c.where).toBe(EXIT.interrupted);
  });

  it('the reading finds what it is meant to find', () => {
    expect(ctrlCCodes('Ctrl-C stops the session (exit 2) with the same hint.')).toEqual([{ code: 2, where: 'Ctrl-C stops the session (exit 2' }]);
    expect(ctrlCCodes('Ctrl-C or SIGTERM stops it and exits 130 (the shell’s convention).').map((c) => c.code)).toEqual([130]);
    expect(ctrlCCodes('Ctrl-C (exit 130) or SIGTERM (exit 0) stops it.').map((c) => c.code)).toEqual([130]);
  });
});
