/** Card tokenization: the card rules beyond the shape, and the vault (encrypted, deduplicated per merchant). */
import { randomBytes } from 'node:crypto';
import type { TokenizeResult, CardInput } from '../../contract/resources/tokens.js';
import { cardLengthProblem, cvvProblem, detectBrand, type CardBrand } from '../../domain/brands.js';
import { luhnValid } from '../../domain/luhn.js';
import type { ServiceContext } from './context.js';
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
 * (AES-256-GCM); the CVV is only checked and never written.
 *
 * The public key that calls this sits in a browser, so the answer must tell its holder
 * nothing about the cards already on file, and must change none of them. A token is reused
 * only for the very same card data (number, holder name and expiry, matched by a keyed hash,
 * `Keyring.cardKey`): the caller already knows all of it, and gets the answer a first
 * tokenization gets (201, the same shape). Any other data makes a token of its own; the
 * data behind an existing token is never rewritten. Every token also keeps the HMAC of the
 * number alone (`fingerprint`), shared by the tokens of one number and never answered.
 */
export async function tokenize(ctx: ServiceContext, card: CardInput): Promise<TokenizeResult> {
  const brand = checkCard(card, ctx.now());
  const { keyring } = ctx.deps;
  const data = { number: card.number, holderName: card.holderName, expirationMonth: card.expirationMonth, expirationYear: card.expirationYear };
  const cardKey = keyring.cardKey(data);
  const row: TokenRow = {
    token: `tok_${randomBytes(18).toString('base64url')}`,
    brand,
    first_six: card.number.slice(0, 6),
    last_four: card.number.slice(-4),
    exp_month: card.expirationMonth,
    exp_year: card.expirationYear,
  };
  return ctx.db.tx(async (q) => {
    // ON CONFLICT: of two tokenizations of one card at once, the second finds the first's token
    const { changes } = await q.run(
      `INSERT INTO card_tokens (token, merchant_id, fingerprint, card_key, brand, first_six, last_four, exp_month, exp_year, encrypted, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (merchant_id, card_key) DO NOTHING`,
      [
        row.token,
        ctx.merchantId,
        keyring.fingerprint(card.number),
        cardKey,
        brand,
        row.first_six,
        row.last_four,
        row.exp_month,
        row.exp_year,
        keyring.encrypt(JSON.stringify(data)),
        ctx.now().toISOString(),
      ],
    );
    if (changes) return toResult(row);
    const existing = await q.get<TokenRow>(
      'SELECT token, brand, first_six, last_four, exp_month, exp_year FROM card_tokens WHERE merchant_id = ? AND card_key = ?',
      [ctx.merchantId, cardKey],
    );
    if (!existing) throw new Error('card token neither inserted nor found');
    return toResult(existing);
  });
}
