/**
 * Checks of flag values made before anything is sent, shared by the generated commands and the
 * hand-written ones, so that one mistake gets one message (and exit 2) whichever command it is.
 */
import { usage } from './errors.js';

/** An absolute http(s) URL, else a usage error naming the flag. */
export function checkHttpUrl(flag: string, value: string): void {
  let u: URL | undefined;
  try {
    u = new URL(value);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) throw usage(`${flag} must be an http(s) URL, got '${value}'`);
}

/** Each item one of `choices`, else a usage error naming the flag and the item. */
export function checkChoices(flag: string, items: readonly string[], choices: readonly string[]): void {
  for (const i of items) if (!choices.includes(i)) throw usage(`${flag}: '${i}' is not one of ${choices.join(', ')}`);
}

/**
 * A list flag's values, as given (`--events a,b --events c`), each split at commas: at least
 * `min` of them, each one of `choices`, and `*` (every one) alone or not at all.
 */
export function listItems(flag: string, raw: readonly string[], choices?: readonly string[], min = 0): string[] {
  const items = raw.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
  if (items.length < min) throw usage(`${flag} must list at least ${min} value${min === 1 ? '' : 's'}, got '${raw.join(',')}'`);
  if (choices) checkChoices(flag, items, choices);
  if (choices?.includes('*') && items.includes('*') && items.length > 1) throw usage(`${flag}: '*' cannot be combined with event names`);
  return items;
}
