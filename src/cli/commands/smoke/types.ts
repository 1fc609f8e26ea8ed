/** What a smoke run reports: its steps' results and what it created. */
/** The flags of `mpay smoke`. */
export interface SmokeOptions {
  junit?: string;
  timeout?: string;
  webhookUrl?: string;
  webhookPort?: string;
  /** move a remote target's clock (35 days: D+30 moved to a business day) too; the embedded sandbox's always moves */
  allowClock?: boolean;
}

export type StepStatus = 'passed' | 'failed' | 'skipped' | 'not_run';

export interface StepResult {
  name: string;
  status: StepStatus;
  duration_ms: number;
  detail?: string;
  error?: { message: string; code?: string; status?: number; request_id?: string };
}

export interface Created {
  kind: string;
  id: string;
  /** what the run did to it at the end */
  cleanup: 'deleted' | 'revoked' | 'deactivated' | 'kept' | 'cleanup failed';
}

export interface SmokeSummary {
  ok: boolean;
  target: string;
  mode: string | null;
  started_at: string;
  duration_ms: number;
  failed_step: string | null;
  steps: StepResult[];
  created: Created[];
}
