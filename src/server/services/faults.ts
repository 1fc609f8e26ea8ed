/**
 * Named points between the writes of a money operation. Production code calls
 * `faultPoint(name)`; nothing happens unless a hook is installed. The crash tests install one
 * in a child process that kills itself (SIGKILL) at a chosen point, to prove that a crash
 * between any two writes leaves no partial state.
 */
export type FaultPoint =
  | 'withdrawal.inserted'
  | 'withdrawal.debited'
  | 'withdrawal.evented'
  | 'withdrawal.failing'
  | 'withdrawal.reversed';

let hook: ((point: FaultPoint) => void) | undefined;

export function setFaultHook(h: ((point: FaultPoint) => void) | undefined): void {
  hook = h;
}

export function faultPoint(point: FaultPoint): void {
  hook?.(point);
}
