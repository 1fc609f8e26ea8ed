/**
 * Help that helps: a description for every flag of a generated command — the contract's own
 * words when it has them, else what its resource's presentation says the field is (both in the
 * operation's spec, src/cli/spec/generate.ts) — followed by what the contract says about its
 * values: unit (cents…), range, allowed values, default, whether it is required.
 */
import type { FlagSpec } from './spec/types.js';

const humanize = (seg: string) => seg.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase();

/** `--flag <placeholder>`: what the value looks like. */
export function placeholder(f: FlagSpec): string {
  if (f.type === 'boolean') return '[bool]';
  if (f.type === 'json') return '<json>';
  if (f.type === 'string[]') return '<list>';
  if (f.unit) return `<${f.unit}>`;
  if (f.type === 'integer' && f.choices) return '<value>';
  if (f.type === 'integer' || f.type === 'number') return '<n>';
  return '<value>';
}

/** One flag's description: what it is, then unit, range, allowed values, default, required. */
export function flagDescription(f: FlagSpec): string {
  const leaf = f.path[f.path.length - 1]!;
  const owner = f.path.length > 1 ? humanize(f.path[f.path.length - 2]!) : '';
  let what = f.description ?? f.about ?? humanize(leaf);
  if (!f.description && owner && !f.about?.includes(owner)) what = `${owner}: ${what}`;
  const facts: string[] = [];
  if (f.unit === 'cents') facts.push('in cents: 10000 = R$ 100,00');
  else if (f.unit) facts.push(`in ${f.unit}`);
  const whole = f.type === 'integer' && f.choices ? `${f.choices.join(', ')} or a whole number` : undefined;
  if (whole) facts.push(f.minimum !== undefined && f.maximum !== undefined ? `${whole} ${f.minimum} to ${f.maximum}` : whole);
  else if (f.minimum !== undefined && f.maximum !== undefined) {
    if (!what.includes(`${f.minimum} to ${f.maximum}`)) facts.push(`${f.minimum} to ${f.maximum}`);
  }
  else if (f.minimum !== undefined) facts.push(`at least ${f.minimum}`);
  else if (f.maximum !== undefined) facts.push(`at most ${f.maximum}`);
  if (f.minLength !== undefined && f.maxLength !== undefined) facts.push(f.minLength === 1 ? `up to ${f.maxLength} characters` : `${f.minLength} to ${f.maxLength} characters`);
  else if (f.maxLength !== undefined) facts.push(`up to ${f.maxLength} characters`);
  if (f.choices && !whole) facts.push(`one of: ${f.choices.join(', ')}`);
  if (f.type === 'string[]') facts.push('repeatable or comma-separated');
  if (f.type === 'boolean') facts.push('true or false');
  if (f.nullable) facts.push('null clears it');
  if (f.default !== undefined && !/default/.test(what)) facts.push(`default ${typeof f.default === 'string' ? f.default : JSON.stringify(f.default)}`);
  if (f.required) facts.push('required');
  return facts.length ? `${what} (${facts.join('; ')})` : what;
}
