/**
 * Test data the sandbox helpers create records with (`mpay smoke`, `mpay trigger`): a fresh
 * valid CPF (check digits from src/domain/taxid), a real PNG built in memory, and the sample
 * pf (pessoa física) submerchant and its address.
 */
import type { BodyOf } from '../../contract/endpoint.js';
import { encodePng } from '../../domain/png.js';
import { cpfCheckDigits } from '../../domain/taxid.js';
import type { Operation } from '../../sdk/client.js';

/** A random valid CPF, never one repeated digit. */
export function randomCpf(random: () => number = Math.random): string {
  for (;;) {
    const base = Array.from({ length: 9 }, () => Math.floor(random() * 10)).join('');
    if (/^(\d)\1{8}$/.test(base)) continue;
    return base + cpfCheckDigits(base);
  }
}

/** A real 1×1 grey PNG, built in memory. */
export function tinyPng(): Buffer {
  return encodePng(1, 'grey', [Uint8Array.of(0x80)]);
}

/** The sample pf submerchant of a sandbox run; `tool` names the run in its trade name and e-mail. */
export function samplePfSubmerchant(tool: 'smoke' | 'trigger', run: string, taxId: string): BodyOf<Operation<'submerchants.create'>> {
  return {
    entity_type: 'pf',
    trade_name: `mpay ${tool} ${run}`,
    legal_name: 'Ana Souza',
    tax_id: taxId,
    email: `${tool}@example.com`,
    birth_date: '1985-04-12',
    mother_name: 'Maria Souza',
  };
}

/** The sample submerchant's address. */
export function sampleAddress(): BodyOf<Operation<'submerchants.addresses.create'>> {
  return { street: 'Av. Paulista', number: '1000', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP', zip_code: '01310-100' };
}

/** The sample card of a sandbox run (a test card that captures unless `number` says otherwise), valid until `year`. */
export function sampleCard(year: number, number = '4111111111111111'): BodyOf<Operation<'tokens.create'>>['card'] {
  return { number, holderName: 'Ana Souza', expirationMonth: '12', expirationYear: String(year), cvv: '123' };
}
