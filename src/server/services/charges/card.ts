/**
 * The card of a charge and the sandbox acquirer's decision on it: the token's stored data, what
 * its encrypted blob says (holder, expiry, the decision on the number), and the decision of a
 * card charge left pending.
 */
import type { CardBrand } from '../../../domain/brands.js';
import { ACQUIRER_UNAVAILABLE, type CardDecision } from '../../../domain/sandbox.js';
import type { Queryable } from '../../../store/db.js';
import type { ServiceDeps } from '../context.js';
import { ApiError } from '../../errors.js';
import { decideInTx } from './capture.js';
import { cardDecisionFor, cardReading } from './cardReading.js';
import { loadCharge, type ChargeRow } from './rows.js';
import { ChargeView } from './view.js';

export interface ChargeCard {
  token: string;
  brand: CardBrand;
  first_six: string;
  last_four: string;
  holder: string;
  decision: CardDecision;
}

/** The card a charge is paid with: its token's stored data and the sandbox acquirer's decision on it. */
export async function cardOf(q: Queryable, deps: ServiceDeps, merchantId: string, token: string, now: Date): Promise<ChargeCard> {
  const t = await q.get<{ token: string; brand: CardBrand; first_six: string; last_four: string; encrypted: string }>(
    'SELECT token, brand, first_six, last_four, encrypted FROM card_tokens WHERE token = ? AND merchant_id = ?',
    [token, merchantId],
  );
  if (!t) {
    throw new ApiError('invalid_token', 'payment_details.token: no such card token for this merchant; tokenize the card with POST /v1/tokens', [
      { field: 'payment_details.token', message: 'no such card token for this merchant' },
    ]);
  }
  if (deps.mode === 'production') throw new ApiError('acquirer_unavailable', ACQUIRER_UNAVAILABLE.failure_reason);
  const card = cardReading(deps, t.encrypted);
  return { token: t.token, brand: t.brand, first_six: t.first_six, last_four: t.last_four, holder: card?.holder ?? '', decision: cardDecisionFor(card, now) };
}

/**
 * The sandbox acquirer's decision on a card charge still pending (one whose create and decision
 * were not written together, after a crash in between): captured (with its receivables) or
 * failed with a reason, in one transaction. A charge that is no longer pending is returned as
 * it is.
 */
export async function decideCardCharge(deps: ServiceDeps, merchantId: string, id: string, now: Date, baseUrl?: string): Promise<ChargeRow> {
  const pre = await loadCharge(deps.db, merchantId, id);
  if (pre.status !== 'pending' || pre.payment_method !== 'credit_card') return pre;
  const tok = await deps.db.get<{ encrypted: string }>('SELECT encrypted FROM card_tokens WHERE token = ? AND merchant_id = ?', [
    pre.card_token ?? '',
    merchantId,
  ]);
  const decision: CardDecision =
    deps.mode === 'production'
      ? { approved: false, ...ACQUIRER_UNAVAILABLE }
      : tok
        ? cardDecisionFor(cardReading(deps, tok.encrypted), now)
        : { approved: false, failure_code: 'processing_error', failure_reason: 'The card token is no longer available' };
  return deps.db.tx(async (q) => {
    const row = await loadCharge(q, merchantId, id, true);
    if (row.status !== 'pending') return row;
    return (await decideInTx(q, deps, new ChargeView(row), decision, now, baseUrl)).row;
  });
}
