import type { merchantEndpoints } from '../../contract/resources/merchant.js';
import type { Handlers } from '../context.js';
import { merchantRecord } from '../services/merchants.js';

export const merchantHandlers: Handlers<typeof merchantEndpoints> = {
  'merchant.get': (ctx) => merchantRecord(ctx),
};
