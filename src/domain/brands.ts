/**
 * Card brand by BIN. Every rule is a prefix range of one digit length; the longest matching
 * prefix wins, so Elo and Hipercard (6-digit BINs) beat Visa, Mastercard, Diners and Discover.
 * The seed's prefixes are all here (including its 5-digit Elo "36297"), plus the published
 * Elo and Hipercard BIN lists.
 */
export const CARD_BRANDS = ['visa', 'mastercard', 'elo', 'amex', 'hipercard', 'diners', 'jcb', 'discover'] as const;
export type CardBrand = (typeof CARD_BRANDS)[number];

type Rule = readonly [brand: CardBrand, from: number, to?: number];

const RULES: readonly Rule[] = [
  // Elo
  ['elo', 401178, 401179], ['elo', 431274], ['elo', 438935], ['elo', 451416], ['elo', 457393],
  ['elo', 457631, 457632], ['elo', 504175], ['elo', 506699, 506778], ['elo', 509000, 509999],
  ['elo', 627780], ['elo', 636297], ['elo', 636368], ['elo', 36297],
  ['elo', 650031, 650033], ['elo', 650035, 650051], ['elo', 650405, 650439], ['elo', 650485, 650538],
  ['elo', 650541, 650598], ['elo', 650700, 650718], ['elo', 650720, 650727], ['elo', 650901, 650978],
  ['elo', 651652, 651679], ['elo', 655000, 655019], ['elo', 655021, 655058],
  // Hipercard
  ['hipercard', 606282], ['hipercard', 637095], ['hipercard', 637568], ['hipercard', 637599],
  ['hipercard', 637609], ['hipercard', 637612], ['hipercard', 384100], ['hipercard', 384140], ['hipercard', 384160],
  // The rest, as the seed lists them
  ['amex', 34], ['amex', 37],
  ['mastercard', 51, 55], ['mastercard', 2221, 2720],
  ['visa', 4],
  ['diners', 300, 305], ['diners', 36], ['diners', 38],
  ['jcb', 35],
  ['discover', 6011], ['discover', 622126, 622925], ['discover', 644, 649], ['discover', 65],
];

export function detectBrand(number: string): CardBrand | null {
  let best: CardBrand | null = null;
  let bestLen = 0;
  for (const [brand, from, to = from] of RULES) {
    const len = String(from).length;
    if (len <= bestLen || number.length < len) continue;
    const head = Number(number.slice(0, len));
    if (head >= from && head <= to) {
      best = brand;
      bestLen = len;
    }
  }
  return best;
}

/**
 * Card number lengths each network issues (PAN digits), and the length of its security code.
 * Amex: 15 digits and a 4-digit CID; Diners Club (Brazil): 14; Elo: 16; Hipercard: 13, 16 or 19
 * (its 3841xx BINs are 19); Visa: 13, 16 or 19; Mastercard: 16; JCB and Discover: 16 to 19.
 * Every brand but Amex has a 3-digit CVV.
 */
export const CARD_LENGTHS: Readonly<Record<CardBrand, readonly number[]>> = {
  visa: [13, 16, 19],
  mastercard: [16],
  elo: [16],
  amex: [15],
  hipercard: [13, 16, 19],
  diners: [14],
  jcb: [16, 17, 18, 19],
  discover: [16, 17, 18, 19],
};
export const cvvLength = (brand: CardBrand): number => (brand === 'amex' ? 4 : 3);

function lengthsText(ns: readonly number[]): string {
  if (ns.length === 1) return String(ns[0]);
  const contiguous = ns.every((n, i) => i === 0 || n === ns[i - 1]! + 1);
  if (contiguous && ns.length > 2) return `${ns[0]} to ${ns[ns.length - 1]}`;
  return `${ns.slice(0, -1).join(', ')} or ${ns[ns.length - 1]}`;
}

/** Why a number of this brand has the wrong length ('' when it is fine). */
export function cardLengthProblem(brand: CardBrand, number: string): string {
  const ok = CARD_LENGTHS[brand];
  return ok.includes(number.length) ? '' : `a ${brand} card has ${lengthsText(ok)} digits; got ${number.length}`;
}

/** Why this CVV does not fit the brand ('' when it is fine). */
export function cvvProblem(brand: CardBrand, cvv: string): string {
  const n = cvvLength(brand);
  return cvv.length === n ? '' : `must have ${n} digits for a ${brand} card`;
}
