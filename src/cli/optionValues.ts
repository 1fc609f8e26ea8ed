/**
 * Values a hand-written option takes, for shell completion, where commander's `choices` cannot
 * say them (a comma-separated or repeated list, e.g. `webhooks listen --events`).
 */
import type { Option } from 'commander';

const VALUES = new WeakMap<Option, readonly string[]>();

/** `option`, completed with `values`. */
export function completesWith(option: Option, values: readonly string[]): Option {
  VALUES.set(option, values);
  return option;
}

export const completionValuesOf = (option: Option): readonly string[] | undefined => VALUES.get(option);
