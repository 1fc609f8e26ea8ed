/**
 * `mpay server start --pricing FILE` (or MPAY_PRICING): the server's pricing document. The flag
 * names a JSON file; the variable holds either a file path or the JSON itself (a value starting
 * with `{`). The document is laid over the defaults (src/contract/resources/pricing.ts) and
 * checked before anything opens: a file that cannot be read, is not JSON or has a bad field is a
 * usage error (exit 2) naming the field. The admin commands read the same setting, so that what
 * they show is what the server charges.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_PRICING, parsePricing, pricingProblems } from '../../../contract/resources/pricing.js';
import type { Pricing } from '../../../domain/pricing.js';
import { usage } from '../../errors.js';

export interface ServerPricing {
  pricing: Pricing;
  /** where it came from ('--pricing FILE', 'MPAY_PRICING FILE', 'MPAY_PRICING'), or undefined for the defaults */
  from?: string;
}

/** A JSON document from `text`, or a usage error saying where it came from. */
export function parseJsonSetting(text: string, from: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw usage(`${from} is not JSON: ${(e as Error).message}`);
  }
}

/** The pricing of --pricing FILE, else MPAY_PRICING (a path, or inline JSON), else the defaults. */
export function serverPricingOf(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): ServerPricing {
  const variable = env.MPAY_PRICING?.trim() || undefined;
  if (flag === undefined && variable === undefined) return { pricing: DEFAULT_PRICING };
  let from: string;
  let text: string;
  if (flag === undefined && variable!.startsWith('{')) {
    from = 'MPAY_PRICING';
    text = variable!;
  } else {
    const path = resolve(cwd, flag ?? variable!);
    from = flag !== undefined ? `--pricing ${flag}` : `MPAY_PRICING ${variable}`;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw usage(`${from}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  const r = parsePricing(parseJsonSetting(text, from));
  if (!r.ok) throw usage(`${from}: ${pricingProblems(r.details)}`);
  return { pricing: r.pricing, from };
}
