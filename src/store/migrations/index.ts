/**
 * Versioned migrations, applied in order. `sql(dialect)` returns DDL for the engine; keep it
 * portable (TEXT ids and timestamps, BIGINT cents, INTEGER 0/1 flags, TEXT JSON) and branch on
 * the dialect only where the engines really differ.
 * Versions: 1xx foundation, 2xx money, 3xx onboarding, 4xx webhooks, 5xx later work.
 */
import { m100_foundation } from './100_foundation.js';
import { m110_meta } from './110_meta.js';
import { m200_ledger } from './200_ledger.js';
import { m120_files } from './120_files.js';

export interface Migration {
  version: number;
  name: string;
  sql: (dialect: 'sqlite' | 'postgres') => string;
}

export const MIGRATIONS: readonly Migration[] = [m100_foundation, m110_meta, m200_ledger, m120_files].sort((a, b) => a.version - b.version);
