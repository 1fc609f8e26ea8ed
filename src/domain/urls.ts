/**
 * URLs that a merchant gives and a page of mpay loads: the logo and cover image of a payment
 * link. The checkout allows the logo's origin in its Content-Security-Policy (`img-src`), so
 * the origin must be one a CSP host-source can say and nothing more: `https://`, a host made
 * of DNS labels (letters, digits, inner hyphens; IDNs in their xn-- form), an optional port.
 * A wildcard, `;`, `,`, a space or a quote in the host would change the policy; a bracketed
 * IPv6 address has no host-source form; a user name or password has no place in an image URL.
 */

/** One DNS label as a CSP host-source takes it (after the URL parser lower-cased it). */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_HOST = 253;
/** Whitespace and controls, which the URL parser would drop or trim instead of refusing. */
const BLANKS = /[\s\p{Cc}]/u;

export const HTTPS_IMAGE_RULE = 'must be an https:// URL whose host is a domain name (letters, digits, hyphens and dots: no wildcard, ";", "," or spaces)';

/** Why `value` is not an https URL with a real host (the message of a 400), or null when it is. */
export function httpsImageUrlProblem(value: string): string | null {
  return parseHttpsImageUrl(value) ? null : problemOf(value);
}

/** The URL when it is https with a real host (see the module comment), else null. */
export function parseHttpsImageUrl(value: string | null | undefined): URL | null {
  if (!value || BLANKS.test(value)) return null;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' || u.username || u.password) return null;
  const host = u.hostname;
  if (host.length > MAX_HOST || !host.split('.').every((l) => LABEL.test(l))) return null;
  return u;
}

function problemOf(value: string): string {
  if (BLANKS.test(value)) return `${HTTPS_IMAGE_RULE}; found a space or control character`;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return HTTPS_IMAGE_RULE;
  }
  if (u.protocol !== 'https:') return `${HTTPS_IMAGE_RULE}; found ${u.protocol}//`;
  if (u.username || u.password) return 'must be an https:// URL without a user name or password';
  return HTTPS_IMAGE_RULE;
}
