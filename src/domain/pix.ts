/**
 * PIX keys (DICT). Each key type has one canonical form, and a key is validated by its type:
 * cpf (11 digits, check digits), cnpj (14 characters, numeric or alphanumeric, check digits),
 * email (at most 77 characters), phone (+55, a valid DDD, a 9-digit mobile number starting
 * with 9) and random (a UUID, the "chave aleatória"). Punctuation people type is accepted and
 * removed: "123.456.789-09" is the CPF key 12345678909, "(11) 98765-4321" is +5511987654321.
 */
import { isValidCnpj, isValidCpf } from './taxid.js';
import { UUID_SOURCE } from './ids.js';

export const PIX_KEY_TYPES = ['cpf', 'cnpj', 'email', 'phone', 'random'] as const;
export type PixKeyType = (typeof PIX_KEY_TYPES)[number];

/** Key types for which a withdrawal must name the holder's document (the key does not). */
export const PIX_KEY_TYPES_NEEDING_HOLDER: readonly PixKeyType[] = ['email', 'phone', 'random'];

/** Area codes (DDD) in use in Brazil (Anatel). */
export const BRAZIL_DDDS: readonly string[] = [
  '11', '12', '13', '14', '15', '16', '17', '18', '19',
  '21', '22', '24', '27', '28',
  '31', '32', '33', '34', '35', '37', '38',
  '41', '42', '43', '44', '45', '46', '47', '48', '49',
  '51', '53', '54', '55',
  '61', '62', '63', '64', '65', '66', '67', '68', '69',
  '71', '73', '74', '75', '77', '79',
  '81', '82', '83', '84', '85', '86', '87', '88', '89',
  '91', '92', '93', '94', '95', '96', '97', '98', '99',
];

const EMAIL_RE = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
/** A random key is a UUID in lower case. */
const RANDOM_KEY_RE = new RegExp(`^${UUID_SOURCE}$`);

export type PixKeyCheck = { ok: true; key: string } | { ok: false; message: string };

/** Validates a key against its type and returns its canonical form. */
export function checkPixKey(type: PixKeyType, raw: string): PixKeyCheck {
  const v = raw.trim();
  switch (type) {
    case 'cpf': {
      const k = v.replace(/[.\-\s]/g, '');
      return isValidCpf(k) ? { ok: true, key: k } : { ok: false, message: 'must be a valid CPF (11 digits with correct check digits) for pix_key_type cpf' };
    }
    case 'cnpj': {
      const k = v.replace(/[./\-\s]/g, '').toUpperCase();
      return isValidCnpj(k)
        ? { ok: true, key: k }
        : { ok: false, message: 'must be a valid CNPJ (14 characters, numeric or alphanumeric, with correct check digits) for pix_key_type cnpj' };
    }
    case 'email': {
      const k = v.toLowerCase();
      if (k.length > 77) return { ok: false, message: 'must be an e-mail address of at most 77 characters for pix_key_type email' };
      return EMAIL_RE.test(k) ? { ok: true, key: k } : { ok: false, message: 'must be an e-mail address, e.g. ana@example.com, for pix_key_type email' };
    }
    case 'phone': {
      let k = v.replace(/[\s()\-.]/g, '');
      if (/^\d{11}$/.test(k)) k = `+55${k}`;
      const m = /^\+55(\d{2})(\d{9})$/.exec(k);
      if (!m) return { ok: false, message: 'must be +55, the 2-digit DDD and the 9-digit mobile number, e.g. +5511987654321, for pix_key_type phone' };
      if (!BRAZIL_DDDS.includes(m[1]!)) return { ok: false, message: `has DDD ${m[1]}, which is not a Brazilian area code` };
      if (!m[2]!.startsWith('9')) return { ok: false, message: 'must be a mobile number (9 digits starting with 9) for pix_key_type phone' };
      return { ok: true, key: k };
    }
    case 'random': {
      const k = v.toLowerCase();
      return RANDOM_KEY_RE.test(k) ? { ok: true, key: k } : { ok: false, message: 'must be a UUID, e.g. 123e4567-e89b-42d3-a456-426614174000, for pix_key_type random' };
    }
  }
}
