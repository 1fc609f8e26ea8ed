import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { CARD_BRANDS } from '../../domain/brands.js';

/**
 * Card tokenization input (the seed's tokenizer.tokenize). The rules that need more than a
 * shape (Luhn, brand, expiry not in the past) are checked by the service against the clock.
 */
export const cardInput = z.strictObject({
  number: z
    .string({ error: 'must be a string of digits' })
    .transform((v) => v.replace(/[\s-]/g, ''))
    .pipe(
      z
        .string()
        .regex(/^\d*$/, { error: 'must contain only digits' })
        .min(13, { error: 'must have at least 13 digits' })
        .max(19, { error: 'must have at most 19 digits' }),
    ),
  holderName: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(100, { error: 'must be at most 100 characters' }),
  expirationMonth: z.string({ error: 'must be a string, 01 to 12' }).regex(/^(0[1-9]|1[0-2])$/, { error: 'must be 01 to 12' }),
  expirationYear: z.string({ error: 'must be a string of 4 digits' }).regex(/^\d{4}$/, { error: 'must be 4 digits' }),
  cvv: z
    .string({ error: 'must be a string of digits' })
    .regex(/^\d*$/, { error: 'must contain only digits' })
    .min(3, { error: 'must have at least 3 digits' })
    .max(4, { error: 'must have at most 4 digits' }),
});
export type CardInput = z.infer<typeof cardInput>;

export const tokenizeRequest = z.strictObject({ card: cardInput });

export const tokenizeResult = z.object({
  token: z.string(),
  brand: z.enum(CARD_BRANDS),
  lastFourDigits: z.string(),
  firstSixDigits: z.string(),
  expirationMonth: z.string(),
  expirationYear: z.string(),
});
export type TokenizeResult = z.infer<typeof tokenizeResult>;

/** How the CLI presents this resource (src/contract/presentation.ts). */
export const tokenPresentation: CliPresentation = {
  groups: {
    tokens: 'Card tokens: tokenize a card with the public key (CVV checked, never stored)',
  },
  fields: {
    number: 'card number, digits only',
    holderName: 'name printed on the card',
    expirationMonth: 'expiration month, 1 to 12',
    expirationYear: 'expiration year, four digits',
    cvv: 'card security code (3 digits, 4 for Amex)',
  },
};

export const tokenEndpoints = [
  endpoint({
    id: 'tokens.create',
    method: 'POST',
    path: '/v1/tokens',
    summary: 'Tokenize a card (authenticated with the public key alone)',
    auth: 'public',
    body: tokenizeRequest,
    response: tokenizeResult,
    status: 201,
    message: 'Card tokenized',
    tag: 'Tokens',
    cli: {
      command: ['tokens', 'create'],
      example:
        'mpay tokens create --card.number 4111111111111111 --card.holder-name "Ana Souza" --card.expiration-month 12 --card.expiration-year 2030 --card.cvv 123',
      columns: ['token', 'brand', 'firstSixDigits', 'lastFourDigits', 'expirationMonth', 'expirationYear'],
    },
  }),
] as const;
