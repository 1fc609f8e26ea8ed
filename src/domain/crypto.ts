/**
 * Cryptocurrency payout destinations: the networks we pay out on, the assets each carries,
 * and the address format of each network (format only; no checksum beyond the alphabet).
 */
export const CRYPTO_NETWORKS = ['bitcoin', 'ethereum', 'polygon', 'tron', 'solana'] as const;
export type CryptoNetwork = (typeof CRYPTO_NETWORKS)[number];

export const CRYPTO_ASSETS = ['BTC', 'ETH', 'USDT', 'USDC'] as const;
export type CryptoAsset = (typeof CRYPTO_ASSETS)[number];

const BASE58 = '[1-9A-HJ-NP-Za-km-z]';

export const NETWORK_RULES: Record<CryptoNetwork, { assets: readonly CryptoAsset[]; address: RegExp; example: string }> = {
  bitcoin: {
    assets: ['BTC'],
    address: new RegExp(`^(?:bc1[02-9ac-hj-np-z]{11,71}|[13]${BASE58}{25,34})$`),
    example: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
  },
  ethereum: { assets: ['ETH', 'USDT', 'USDC'], address: /^0x[0-9a-fA-F]{40}$/, example: '0x52908400098527886E0F7030069857D2E4169EE7' },
  polygon: { assets: ['USDT', 'USDC'], address: /^0x[0-9a-fA-F]{40}$/, example: '0x52908400098527886E0F7030069857D2E4169EE7' },
  tron: { assets: ['USDT'], address: new RegExp(`^T${BASE58}{33}$`), example: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL' },
  solana: { assets: ['USDT', 'USDC'], address: new RegExp(`^${BASE58}{32,44}$`), example: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV' },
};

/** null when the destination is valid, else the field at fault and why. */
export function checkCryptoDestination(network: CryptoNetwork, asset: CryptoAsset, address: string): { field: 'asset' | 'wallet_address'; message: string } | null {
  const rule = NETWORK_RULES[network];
  if (!rule.assets.includes(asset)) return { field: 'asset', message: `${asset} is not paid out on ${network}; use one of: ${rule.assets.join(', ')}` };
  if (!rule.address.test(address)) return { field: 'wallet_address', message: `is not a ${network} address, e.g. ${rule.example}` };
  return null;
}
