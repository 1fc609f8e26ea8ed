/**
 * How the CLI presents the contract's resources: each resource module's endpoints and
 * presentation (its command groups, what its fields are, its nested tables), by resource, and
 * what several resources share. The endpoints' own `cli` blocks (command words, example, columns
 * and their importance) sit on the endpoints. Read at build time only (src/cli/spec/generate.ts),
 * which writes what the CLI needs into generated/: the CLI never loads the contract to present it.
 */
import type { CliPresentation, Endpoint } from './endpoint.js';
import type { ResourceName } from './loaders.js';
import { apiKeyEndpoints, apiKeyPresentation } from './resources/apiKeys.js';
import { chargeEndpoints, chargePresentation } from './resources/charges.js';
import { chargebackEndpoints, chargebackPresentation } from './resources/chargebacks.js';
import { checkoutEndpoints, checkoutPresentation } from './resources/checkout.js';
import { clockEndpoints, clockPresentation } from './resources/clock.js';
import { merchantEndpoints, merchantPresentation } from './resources/merchant.js';
import { paymentLinkEndpoints, paymentLinkPresentation } from './resources/paymentLinks.js';
import { pinEndpoints, pinPresentation } from './resources/pin.js';
import { receivableEndpoints, receivablePresentation } from './resources/receivables.js';
import { recipientEndpoints, recipientPresentation } from './resources/recipients.js';
import { sandboxWalletEndpoints, sandboxWalletPresentation } from './resources/sandboxWallet.js';
import { submerchantEndpoints, submerchantPresentation } from './resources/submerchants.js';
import { tokenEndpoints, tokenPresentation } from './resources/tokens.js';
import { walletEndpoints, walletPresentation } from './resources/wallets.js';
import { webhookEndpoints, webhookPresentation } from './resources/webhooks.js';
import { withdrawalEndpoints, withdrawalPresentation } from './resources/withdrawals.js';

/** A resource module: its endpoints and how the CLI presents them. */
interface Resource {
  endpoints: readonly Endpoint[];
  presentation: CliPresentation;
}

/**
 * Every resource module's endpoints and presentation, by the names of src/contract/loaders.ts: a
 * resource without its presentation does not type-check.
 */
export const resources = {
  merchant: { endpoints: merchantEndpoints, presentation: merchantPresentation },
  apiKeys: { endpoints: apiKeyEndpoints, presentation: apiKeyPresentation },
  tokens: { endpoints: tokenEndpoints, presentation: tokenPresentation },
  pin: { endpoints: pinEndpoints, presentation: pinPresentation },
  withdrawals: { endpoints: withdrawalEndpoints, presentation: withdrawalPresentation },
  recipients: { endpoints: recipientEndpoints, presentation: recipientPresentation },
  paymentLinks: { endpoints: paymentLinkEndpoints, presentation: paymentLinkPresentation },
  charges: { endpoints: chargeEndpoints, presentation: chargePresentation },
  chargebacks: { endpoints: chargebackEndpoints, presentation: chargebackPresentation },
  receivables: { endpoints: receivableEndpoints, presentation: receivablePresentation },
  wallets: { endpoints: walletEndpoints, presentation: walletPresentation },
  clock: { endpoints: clockEndpoints, presentation: clockPresentation },
  submerchants: { endpoints: submerchantEndpoints, presentation: submerchantPresentation },
  webhooks: { endpoints: webhookEndpoints, presentation: webhookPresentation },
  sandboxWallet: { endpoints: sandboxWalletEndpoints, presentation: sandboxWalletPresentation },
  checkout: { endpoints: checkoutEndpoints, presentation: checkoutPresentation },
} satisfies Record<ResourceName, Resource>;

/**
 * What no one resource owns: the groups whose commands come from several resources, and the
 * fields several resources' requests share (a resource's own `fields` win over these).
 */
export const sharedPresentation: CliPresentation = {
  groups: {
    sandbox: 'Sandbox: magic values, clock, PIX payment, review, chargebacks, wallet adjustments',
  },
  fields: {
    name: 'name',
    type: 'type',
    amount: 'amount',
    currency: 'currency',
    metadata: 'your own key/value pairs (JSON object)',
    description: 'description shown to the customer',
    status: 'only records with this status',
    start_date: 'from this date (YYYY-MM-DD)',
    end_date: 'to this date (YYYY-MM-DD)',
    expires_at: 'when the link stops accepting payments (ISO 8601 date-time)',
    submerchant_id: 'submerchant id (see `mpay submerchants list`)',
    charge_id: 'charge id (see `mpay charges list`)',
    owner_type: 'whose wallets: the merchant or its submerchants',
    direction: 'credit (add) or debit (take)',
    product_type: 'physical goods or digital',
    payment_method: 'how the customer pays',
    email: 'e-mail address',
    tax_id: 'CPF (11 digits) or CNPJ (14 digits)',
    phone: 'phone number, e.g. +5511987654321',
  },
};
