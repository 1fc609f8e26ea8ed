/**
 * A party's agenda: its receivables not yet settled. What a party gives back of a sale (its
 * share of a refund, its part of a chargeback) is taken from its agenda before its wallet, as
 * Brazilian acquirers take it "da agenda" before the balance. Pure, integer cents.
 */
import { assertCents } from './money.js';

/** What `drawDown` took: from each receivable, in the order given, and what is left to take elsewhere. */
export interface Draw {
  taken: number[];
  rest: number;
}

/**
 * Takes `part` cents from receivables whose nets are `nets`, in the order given: each gives
 * its whole net while more is owed, the next one what is still owed, the ones after nothing.
 * `rest` is what the receivables could not cover. Σ taken + rest = part, and no receivable
 * gives more than its net.
 */
export function drawDown(part: number, nets: readonly number[]): Draw {
  assertCents(part);
  if (part < 0) throw new RangeError('the part to take cannot be negative');
  let rest = part;
  const taken = nets.map((net) => {
    assertCents(net);
    if (net < 0) throw new RangeError('a receivable net cannot be negative');
    const t = Math.min(net, rest);
    rest -= t;
    return t;
  });
  return { taken, rest };
}
