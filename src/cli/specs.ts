import { groupSpecs, words } from '#generated/spec-groups.js';
import type { OperationSpec } from './spec/types.js';

/**
 * The generated operations, by command group: a command of one group makes that group's specs
 * only (`groupSpecs`); the whole table is made when help, completion or a table's view asks for it.
 */
export { groupSpecs, words };

let every: OperationSpec[] | undefined;
/** Every operation's spec, group after group: the order the tree and the generated table have. */
export const allSpecs = (): OperationSpec[] => (every ??= words.flatMap(groupSpecs));
