import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { timestamp, uuid } from '../common.js';
import { pricingDocument } from './pricing.js';

/** The authenticated merchant (an extension: lets a client check its key and see its wallet). */
export const merchant = z.object({
  id: uuid(),
  name: z.string(),
  wallet_id: uuid(),
  pin_enabled: z.boolean(),
  mode: z.enum(['sandbox', 'production']),
  clock: timestamp().describe("the merchant's clock (moved by the sandbox clock)"),
  pricing: pricingDocument.describe("the merchant's effective pricing: the server's, with the merchant's override laid over it; new charges are priced by it"),
  created_at: timestamp(),
});
export type Merchant = z.infer<typeof merchant>;

/** How the CLI presents this resource (src/contract/presentation.ts). */
export const merchantPresentation: CliPresentation = {
  groups: {
    merchant: 'Merchant: your account, its clock and the withdrawal PIN',
  },
};

export const merchantEndpoints = [
  endpoint({
    id: 'merchant.get',
    method: 'GET',
    path: '/v1/merchant',
    summary: 'The merchant that owns the API key',
    auth: 'secret',
    response: merchant,
    message: 'Merchant retrieved',
    tag: 'Merchant',
    cli: {
      command: ['merchant', 'get'],
      example: 'mpay merchant get -o json',
      columns: ['id', 'name', 'wallet_id', 'pin_enabled', 'mode', 'clock'],
    },
  }),
] as const;
