/**
 * The checkout page's own script and style sheet, built by scripts/build.mjs from
 * browser/main.ts (which imports the same BIN table, Luhn and CPF/CNPJ code as the server)
 * and browser/checkout.css into generated/checkout-assets.json (outside src/: see src/generated.d.ts). Served under content-hashed names, so
 * they can be cached for good; the page pins them with Subresource Integrity as well.
 */
import { createHash } from 'node:crypto';
import built from '#generated/checkout-assets.json' with { type: 'json' };

export interface Asset {
  name: string;
  body: string;
  type: string;
  /** Subresource Integrity value */
  integrity: string;
}

function asset(base: string, ext: string, body: string, type: string): Asset {
  const sha = createHash('sha256').update(body).digest();
  return { name: `${base}.${sha.toString('hex').slice(0, 16)}.${ext}`, body, type, integrity: `sha256-${sha.toString('base64')}` };
}

export const CHECKOUT_JS = asset('checkout', 'js', built.js, 'text/javascript; charset=utf-8');
export const CHECKOUT_CSS = asset('checkout', 'css', built.css, 'text/css; charset=utf-8');

export const ASSETS: ReadonlyMap<string, Asset> = new Map([CHECKOUT_JS, CHECKOUT_CSS].map((a) => [a.name, a]));
