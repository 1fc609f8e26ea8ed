/** Card tokenization: the card rules beyond the shape, and the vault (encrypted, deduplicated per merchant). */
import { randomBytes } from 'node:crypto';
import type { TokenizeResult, CardInput } from '../../contract/resources/tokens.js';
import { cardLengthProblem, cvvProblem, detectBrand, type CardBrand } from '../../domain/brands.js';
import { luhnValid } from '../../domain/luhn.js';
import type { ServiceContext } from '../context.js';
import { invalid } from '../errors.js';

interface TokenRow {
  token: string;
  brand: CardBrand;
  first_six: string;
  last_four: string;
  exp_month: string;
  exp_year: string;
}

const toResult = (r: TokenRow): TokenizeResult => ({
  token: r.token,
  brand: r.brand,
  lastFourDigits: r.last_four,
  firstSixDigits: r.first_six,
  expirationMonth: r.exp_month,
  expirationYear: r.exp_year,
});

/** Rules beyond the shape: Luhn, a known brand, the brand's lengths of number and CVV, an expiry not in the past (merchant clock). */
export function checkCard(card: CardInput, now: Date): CardBrand {
  if (!luhnValid(card.number)) throw invalid('card.number', 'is not a valid card number (check digit failed)');
  const brand = detectBrand(card.number);
  if (!brand) throw invalid('card.number', 'brand not accepted: visa, mastercard, elo, amex, hipercard, diners, jcb, discover');
  const badLength = cardLengthProblem(brand, card.number);
  if (badLength) throw invalid('card.number', badLength);
  const badCvv = cvvProblem(brand, card.cvv);
  if (badCvv) throw invalid('card.cvv', badCvv);
  const y = Number(card.expirationYear);
  const m = Number(card.expirationMonth);
  const cy = now.getUTCFullYear();
  const cm = now.getUTCMonth() + 1;
  if (y < cy || (y === cy && m < cm)) {
    throw invalid('card.expirationYear', `the card expired in ${card.expirationMonth}/${card.expirationYear}`);
  }
  if (y > cy + 20) throw invalid('card.expirationYear', `must be at most ${cy + 20}`);
  return brand;
}

/**
 * Tokenizes a card for the merchant. The number, holder and expiry are stored encrypted
 * (AES-256-GCM); the CVV is only checked and never written. The same number for the same
 * merchant (matched by an HMAC fingerprint) returns the existing token, refreshed with the
 * newest holder and expiry.
 */
export async function tokenize(ctx: ServiceContext, card: CardInput): Promise<{ result: TokenizeResult; created: boolean }> {
  const brand = checkCard(card, ctx.now());
  const { keyring } = ctx.deps;
  const fingerprint = keyring.fingerprint(card.number);
  const encrypted = keyring.encrypt(
    JSON.stringify({ number: card.number, holderName: card.holderName, expirationMonth: card.expirationMonth, expirationYear: card.expirationYear }),
  );
  const row: TokenRow = {
    token: `tok_${randomBytes(18).toString('base64url')}`,
    brand,
    first_six: card.number.slice(0, 6),
    last_four: card.number.slice(-4),
    exp_month: card.expirationMonth,
    exp_year: card.expirationYear,
  };
  return ctx.db.tx(async (q) => {
    const existing = await q.get<TokenRow>(
      `SELECT token, brand, first_six, last_four, exp_month, exp_year FROM card_tokens WHERE merchant_id = ? AND fingerprint = ?${q.dialect.forUpdate}`,
      [ctx.merchantId, fingerprint],
    );
    if (existing) {
      await q.run('UPDATE card_tokens SET exp_month = ?, exp_year = ?, encrypted = ? WHERE token = ?', [
        card.expirationMonth,
        card.expirationYear,
        encrypted,
        existing.token,
      ]);
      return { result: toResult({ ...existing, exp_month: card.expirationMonth, exp_year: card.expirationYear }), created: false };
    }
    await q.run(
      `INSERT INTO card_tokens (token, merchant_id, fingerprint, brand, first_six, last_four, exp_month, exp_year, encrypted, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [row.token, ctx.merchantId, fingerprint, brand, row.first_six, row.last_four, row.exp_month, row.exp_year, encrypted, ctx.now().toISOString()],
    );
    return { result: toResult(row), created: true };
  });
}
