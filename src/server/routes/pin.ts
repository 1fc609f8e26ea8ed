import type { pinEndpoints } from '../../contract/resources/pin.js';
import type { Handlers } from '../context.js';
import { disablePin, setPin } from '../services/merchants.js';

export const pinHandlers: Handlers<typeof pinEndpoints> = {
  'merchant.pin.set': async (ctx, { body }) => setPin(ctx, body.pin, body.current_pin),
  'merchant.pin.disable': async (ctx, { body }) => disablePin(ctx, body.current_pin),
};
