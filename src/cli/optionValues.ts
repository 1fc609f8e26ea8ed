/**
 * Values a hand-written option takes, for shell completion, where commander's `choices` cannot
 * say them (a comma-separated or repeated list, e.g. `webhooks listen --events`).
 */
import type { Option } from 'commander';

const VALUES = new WeakMap<Option, { values: readonly string[]; list: boolean }>();

/**
 * `option`, completed with `values`; `list`: it takes them comma-separated (`a,b,…`), so the
 * shells complete the part after the last comma.
 */
export function completesWith(option: Option, values: readonly string[], o: { list?: boolean } = {}): Option {
  VALUES.set(option, { values, list: o.list === true });
  return option;
}

export const completionValuesOf = (option: Option): readonly string[] | undefined => VALUES.get(option)?.values;

/** The option takes its values as a comma-separated list. */
export const completesList = (option: Option): boolean => VALUES.get(option)?.list === true;
