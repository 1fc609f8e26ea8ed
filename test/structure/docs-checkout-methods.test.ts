// docs/checkout.md opens by saying how a buyer pays a link: every method a link may allow.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LINK_PAYMENT_METHODS } from '../../src/contract/resources/paymentLinks.js';

const WORDS: Record<(typeof LINK_PAYMENT_METHODS)[number], RegExp> = { credit_card: /\bcard\b/, pix: /\bPIX\b/, boleto: /\bboleto\b/ };

describe('docs/checkout.md', () => {
  it('names every payment method a link may allow in its opening paragraph', () => {
    const text = readFileSync(join(__dirname, '..', '..', 'docs', 'checkout.md'), 'utf8');
    const opening = text.split('\n\n')[1]!.replace(/\s+/g, ' ');
    for (const m of LINK_PAYMENT_METHODS) expect(opening, m).toMatch(WORDS[m]);
  });
});
