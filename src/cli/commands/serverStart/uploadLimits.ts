/**
 * `mpay server start --upload-rate --upload-quota --upload-retention` (or MPAY_UPLOAD_RATE,
 * MPAY_UPLOAD_QUOTA, MPAY_UPLOAD_RETENTION_HOURS): the per-merchant upload limits
 * (src/server/uploadLimits.ts holds their defaults). A flag wins over its variable; a part
 * given by neither keeps its default.
 */
import type { UploadLimits } from '../../../server/uploadLimits.js';
import { usage } from '../../errors.js';

export interface UploadLimitFlags {
  uploadRate?: string;
  uploadQuota?: string;
  uploadRetention?: string;
}

const UNITS: Record<string, number> = { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4 };

/** "PER_MINUTE[,BURST]" or "off": uploads per merchant per minute, and how many at once (default: the per-minute figure). */
export function parseUploadRate(raw: string): UploadLimits['rate'] {
  if (raw === 'off') return null;
  const m = /^(\d+)(?:,(\d+))?$/.exec(raw);
  if (!m || Number(m[1]) < 1 || (m[2] !== undefined && Number(m[2]) < 1)) {
    throw usage(`--upload-rate must be PER_MINUTE[,BURST] (e.g. 30,30) or off, got '${raw}'`);
  }
  const perMinute = Number(m[1]);
  return { perSecond: perMinute / 60, burst: m[2] ? Number(m[2]) : perMinute };
}

/** "SIZE" in bytes or with a unit (KiB, MiB, GiB, TiB), or "off". */
export function parseUploadQuota(raw: string): UploadLimits['quotaBytes'] {
  if (raw === 'off') return null;
  const m = /^(\d+)\s*([a-z]*)$/i.exec(raw.trim());
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  const bytes = m && unit ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) {
    throw usage(`--upload-quota must be a size in bytes or with a unit (e.g. 2GiB, 500MiB) or off, got '${raw}'`);
  }
  return bytes;
}

/** Whole hours from 1 to 8760 (a year). */
export function parseUploadRetention(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 8760) {
    throw usage(`--upload-retention must be whole hours from 1 to 8760, got '${raw}'`);
  }
  return Number(raw);
}

/** The parts of AppDeps.uploadLimits that the flags or the environment set. */
export function uploadLimitsOfFlags(opts: UploadLimitFlags, env: NodeJS.ProcessEnv): Partial<UploadLimits> {
  const pick = (flag: string | undefined, name: string) => flag ?? (env[name] || undefined);
  const rate = pick(opts.uploadRate, 'MPAY_UPLOAD_RATE');
  const quota = pick(opts.uploadQuota, 'MPAY_UPLOAD_QUOTA');
  const retention = pick(opts.uploadRetention, 'MPAY_UPLOAD_RETENTION_HOURS');
  return {
    ...(rate !== undefined ? { rate: parseUploadRate(rate) } : {}),
    ...(quota !== undefined ? { quotaBytes: parseUploadQuota(quota) } : {}),
    ...(retention !== undefined ? { retentionHours: parseUploadRetention(retention) } : {}),
  };
}
