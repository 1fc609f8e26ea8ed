import { issuesToDetails, PARSE_OPTIONS } from '../contract/issues.js';
import { cardInput, type TokenizeResult } from '../contract/resources/tokens.js';
import { luhnValid } from '../domain/luhn.js';
import { MpayClient } from './client.js';
import { ApiError, AuthenticationError, MpayError, ValidationError } from './errors.js';
import { HttpTransport } from './httpTransport.js';
import type { Transport } from './transport.js';

export interface CardData {
  number: string;
  holderName: string;
  expirationMonth: string;
  expirationYear: string;
  cvv: string;
}

export interface TokenizerOptions {
  publicKey: string;
  /** where the service is; default http://127.0.0.1:4010 (`mpay server start`) */
  baseUrl?: string;
  /** another transport (e.g. the embedded one); overrides baseUrl */
  transport?: Transport;
}

/**
 * Card tokenization with the public key alone (the seed's tokenizer.tokenize). The card is
 * checked before it leaves: number 13–19 digits with a valid check digit, a non-empty holder
 * name, month 01–12, a 4-digit year, a CVV of 3 or 4 digits. The CVV is sent for validation
 * and never stored.
 */
export class Tokenizer {
  private readonly client: MpayClient;

  constructor(o: TokenizerOptions) {
    if (!o?.publicKey) throw new AuthenticationError('publicKey is required', 401, 'unauthorized');
    this.client = new MpayClient({
      transport: o.transport ?? new HttpTransport(o.baseUrl ?? 'http://127.0.0.1:4010'),
      publicKey: o.publicKey,
      userAgent: 'mpay-tokenizer',
    });
  }

  async tokenize({ card }: { card: CardData }): Promise<TokenizeResult> {
    const parsed = cardInput.safeParse(card ?? {}, PARSE_OPTIONS);
    if (!parsed.success) {
      // the service's wording for the same mistake (a missing field, a wrong type, a bad value)
      const details = issuesToDetails(parsed.error.issues, 'card');
      const first = details[0]!;
      throw new ValidationError(`${first.field}: ${first.message}`, first.field, details);
    }
    if (!luhnValid(parsed.data.number)) throw new ValidationError('card.number: is not a valid card number (check digit failed)', 'card.number');
    try {
      const r = await this.client.call('tokens.create', { body: { card: parsed.data } });
      return r.data;
    } catch (e) {
      if (e instanceof ApiError || e instanceof MpayError) throw e;
      throw new ApiError((e as Error).message, 0, 'unknown');
    }
  }
}
