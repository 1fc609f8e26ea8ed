import type { systemEndpoints } from '../../contract/resources/system.js';
import type { Handlers } from '../context.js';
import { merchantRecord } from '../services/pin.js';

export const systemHandlers: Handlers<typeof systemEndpoints> = {
  'merchant.get': (ctx) => merchantRecord(ctx),
};
