/**
 * Which language the onboarding wizard speaks: `--lang pt-BR|en`, else the locale of the
 * environment as POSIX orders it (LC_ALL, then LC_MESSAGES, then LANG): Portuguese (`pt_BR`,
 * `pt_BR.UTF-8`, `pt`) → pt-BR, anything else → English. The confirmations of the irreversible
 * verbs (confirm.ts) speak the locale's language too. The words are in locales/.
 */
import { usage } from '../errors.js';
import { en, type Catalogue } from './locales/en.js';
import { ptBR } from './locales/ptBr.js';

export const LANGS = ['pt-BR', 'en'] as const;
export type Lang = (typeof LANGS)[number];

export function detectLang(env: NodeJS.ProcessEnv, flag?: string): Lang {
  if (flag !== undefined) {
    if (/^pt([-_]br)?$/i.test(flag)) return 'pt-BR';
    if (/^en([-_][a-z]{2})?$/i.test(flag)) return 'en';
    throw usage(`--lang must be ${LANGS.join(' or ')}, got '${flag}'`);
  }
  const locale = env.LC_ALL || env.LC_MESSAGES || env.LANG || '';
  return /^pt([_-]|\.|@|$)/i.test(locale) ? 'pt-BR' : 'en';
}

export function catalogue(lang: Lang): Catalogue {
  return lang === 'pt-BR' ? ptBR : en;
}

/** A message of the contract or the service in the catalogue's language (as it came when there is no translation). */
export function translate(t: Catalogue, message: string): string {
  for (const [re, to] of t.problems) if (re.test(message)) return message.replace(re, to);
  return message;
}

export { en, type Catalogue };
