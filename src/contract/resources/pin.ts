import * as z from 'zod';
import { endpoint, type CliPresentation } from '../endpoint.js';
import { merchant } from './merchant.js';
import { PIN_RE, weakPinReason } from '../../domain/pin.js';

/** A 4-digit transaction PIN as presented (to check against the stored one). */
export const pinInput = () => z.string({ error: 'must be a string of 4 digits' }).regex(PIN_RE, { error: 'must be exactly 4 digits' });

/** A new PIN: 4 digits, not a repeated digit or a straight run. */
const newPin = () =>
  pinInput().superRefine((v, ctx) => {
    const why = weakPinReason(v);
    if (why) ctx.addIssue({ code: 'custom', message: why });
  });

export const pinSet = z.strictObject({
  pin: newPin(),
  current_pin: pinInput().optional().describe('required when a PIN is already set'),
});

export const pinDisable = z.strictObject({
  current_pin: pinInput(),
});

/** How the CLI presents this resource (src/contract/presentation.ts). */
export const pinPresentation: CliPresentation = {
  groups: {
    'merchant pin': 'Withdrawal PIN: set or disable the 4-digit PIN that protects payouts',
  },
  fields: {
    pin: 'the 4-digit withdrawal PIN',
    current_pin: 'the current 4-digit PIN',
  },
};

export const pinEndpoints = [
  endpoint({
    id: 'merchant.pin.set',
    method: 'PUT',
    path: '/v1/merchant/pin',
    summary: 'Set or change the transaction PIN that withdrawals require',
    auth: 'secret',
    body: pinSet,
    response: merchant,
    status: 200,
    message: 'Transaction PIN set',
    tag: 'Merchant',
    cli: {
      command: ['merchant', 'pin', 'set'],
      example: 'mpay merchant pin set --pin 4829 --current-pin 1357',
      columns: ['id', 'name', 'pin_enabled'],
    },
  }),
  endpoint({
    id: 'merchant.pin.disable',
    method: 'DELETE',
    path: '/v1/merchant/pin',
    summary: 'Disable the transaction PIN (needs the current PIN)',
    auth: 'secret',
    body: pinDisable,
    response: merchant,
    status: 200,
    message: 'Transaction PIN disabled',
    tag: 'Merchant',
    cli: {
      command: ['merchant', 'pin', 'disable'],
      example: 'mpay merchant pin disable --current-pin 4829 --yes',
      columns: ['id', 'name', 'pin_enabled'],
    },
  }),
] as const;
